#include "emutrace/config.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "config/input_file.h"
#include "config/units.h"

namespace emutrace::config {
namespace {

template <typename Words>
std::string join(const Words& words) {
    std::string out;
    for (auto w : words) {
        if (!out.empty()) out += ", ";
        out += w;
    }
    return out;
}

// Text for a one-line error: control characters (a newline in a value or in yaml-cpp's message)
// written as escapes.
std::string one_line(const std::string& s) {
    std::string out;
    for (unsigned char ch : s) {
        if (ch == '\n') {
            out += "\\n";
        } else if (ch < 0x20 || ch == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", ch);
            out += hex;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out;
}

// A value as an error message quotes it: whole up to 80 characters, else its start and its size
// (a 10 MB value would otherwise be echoed whole in a one-line error).
std::string quoted(const std::string& s) {
    if (s.size() <= 80) return "'" + one_line(s) + "'";
    return "'" + one_line(s.substr(0, 60)) + "...' (" + std::to_string(s.size()) + " characters)";
}

std::string position(const std::string& file, const YAML::Mark& m) {
    return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// Nodes a document may hold, aliases counted each time they are used: a scenario has thousands at
// most, and a few nested aliases (a "billion laughs") would otherwise expand to billions.
constexpr std::size_t kMostNodes = 200'000;

// Deeper than any scenario or campaign nests; an alias used inside its own anchor (`m: &a {x: *a}`)
// is a node that contains itself, infinitely deep, and would otherwise be walked until the stack ends.
constexpr std::size_t kDeepest = 64;
// The longest file read: scenarios and campaigns are a few KB; yaml-cpp's tree of one is
// hundreds of times its text (6 MB of YAML took 1.4 GB before the checks below could run).
constexpr std::size_t kLargestText = 1u << 20;

// What yaml-cpp accepts and a scenario must not hold: a key twice in one mapping (the second would
// silently lose to the first), a key with no value (`cpu:`), which would read as the default, more
// nodes than kMostNodes and nesting deeper than kDeepest.
void check_tree(const YAML::Node& n, const std::string& file, std::size_t& nodes, std::size_t depth = 0) {
    if (++nodes > kMostNodes)
        throw ConfigError(position(file, n.Mark()) + ": more than " + std::to_string(kMostNodes) +
                          " values, aliases counted each time they are used: not a scenario");
    if (depth > kDeepest)
        throw ConfigError(position(file, n.Mark()) + ": nested more than " + std::to_string(kDeepest) +
                          " levels deep (an alias used inside its own anchor?)");
    if (n.IsSequence()) {
        for (const auto& item : n) check_tree(item, file, nodes, depth + 1);
        return;
    }
    if (!n.IsMap()) return;
    std::vector<std::pair<std::string, YAML::Mark>> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) continue;
        const std::string& key = it->first.Scalar();
        for (const auto& [other, mark] : seen)
            if (other == key)
                throw ConfigError(position(file, it->first.Mark()) + ": " + quoted(key) + " appears twice in one mapping (first at line " +
                                  std::to_string(mark.line + 1) + ")");
        seen.emplace_back(key, it->first.Mark());
        if (it->second.IsNull())
            throw ConfigError(position(file, it->first.Mark()) + ": " + quoted(key) + " has no value (give one, or leave the key out)");
        check_tree(it->second, file, nodes, depth + 1);
    }
}

// The line of a second YAML document's start ("---" after content, or a second "---"), or 0. Found
// in the text: yaml-cpp 0.7's LoadAll never returns on some inputs (a lone ",").
std::size_t second_document_line(const std::string& text) {
    bool content = false;
    std::size_t line = 0;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string_view l(text.data() + at, end - at);
        ++line;
        at = end + 1;
        bool marker = l.substr(0, 3) == "---" && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
        if (marker && content) return line;
        if (marker) {
            content = true;  // a document started: the next marker starts another
            continue;
        }
        std::size_t first = l.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && l[first] != '#') content = true;
    }
    return 0;
}

// One YAML document, checked (check_tree); a second document is an error, not ignored.
YAML::Node load_one(const std::string& text, const std::string& file) {
    if (std::size_t line = second_document_line(text))
        throw ConfigError(file + ":" + std::to_string(line) + ":1: a second YAML document ('---'): a scenario is one document");
    YAML::Node root = YAML::Load(text);
    std::size_t nodes = 0;
    check_tree(root, file, nodes);
    return root;
}

YAML::Mark mark_of(const YAML::Node& n, const YAML::Mark& fallback) {
    if (!n.IsDefined()) return fallback;
    YAML::Mark m = n.Mark();
    return m.is_null() ? fallback : m;
}

}  // namespace

struct Node::Value {
    YAML::Node node;
    YAML::Mark mark;  ///< position of the node, or of the key/parent when the node is absent
};

namespace {

std::shared_ptr<const Node::Value> value(YAML::Node node, YAML::Mark mark) {
    return std::make_shared<const Node::Value>(Node::Value{std::move(node), mark});
}

}  // namespace

bool Node::defined() const {
    return value_->node.IsDefined() && !value_->node.IsNull();
}
bool Node::is_map() const {
    return value_->node.IsMap();
}
bool Node::is_sequence() const {
    return value_->node.IsSequence();
}
bool Node::is_scalar() const {
    return value_->node.IsScalar();
}

Node Node::load_file(const std::string& path) {
    auto source = std::make_shared<const Source>(Source{path});
    // No more than a scenario can be, from a pipe or a device as from a file: yaml-cpp holds a few
    // hundred bytes per byte of text before any check of the tree can run.
    const std::string text = read_input(path, "scenario or campaign file", kLargestText);
    try {
        YAML::Node root = load_one(text, path);
        return Node(value(root, mark_of(root, YAML::Mark())), source, "");
    } catch (const YAML::ParserException& e) {
        throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                          ": YAML syntax error: " + one_line(e.msg));
    }
}

Node Node::load_string(const std::string& text, const std::string& name) {
    auto source = std::make_shared<const Source>(Source{name});
    try {
        YAML::Node root = load_one(text, name);
        return Node(value(root, mark_of(root, YAML::Mark())), source, "");
    } catch (const YAML::ParserException& e) {
        throw ConfigError(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                          ": YAML syntax error: " + one_line(e.msg));
    }
}

Node Node::with_settings(const std::vector<std::string>& settings) const {
    if (settings.empty()) return *this;
    YAML::Node root = YAML::Clone(value_->node);
    if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    for (const std::string& setting : settings) {
        auto fail = [&](const std::string& why) { throw ConfigError(one_line("--set " + setting + ": " + why)); };
        std::size_t eq = setting.find('=');
        if (eq == std::string::npos || eq == 0) fail("give it as path=value, e.g. clock=48MHz or stimuli[0].jitter=200us");
        const std::string path = setting.substr(0, eq);
        YAML::Node value;
        try {
            value = YAML::Load(setting.substr(eq + 1));
        } catch (const YAML::ParserException& e) {
            fail("the value is no YAML: " + one_line(e.msg));
        }
        // Walk the path: keys separated by '.', each followed by any number of [index].
        YAML::Node at = root;
        std::string walked;
        std::size_t i = 0;
        auto step = [&](auto&& key_or_index, bool last) {
            if (last) {
                at[key_or_index] = value;
                return;
            }
            YAML::Node next = at[key_or_index];
            at.reset(next);
        };
        while (i < path.size()) {
            std::size_t end = path.find_first_of(".[", i);
            std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
            if (key.empty()) fail("'" + path + "' has an empty key");
            if (at.IsDefined() && !at.IsNull() && !at.IsMap()) fail(walked + " is no mapping, so it has no key '" + key + "'");
            walked += (walked.empty() ? "" : ".") + key;
            i = end == std::string::npos ? path.size() : end;
            bool last = i == path.size();
            step(key, last);
            while (i < path.size() && path[i] == '[') {
                std::size_t close = path.find(']', i);
                if (close == std::string::npos) fail("'" + path + "' has a '[' without its ']'");
                auto index = parse_integer(path.substr(i + 1, close - i - 1));
                if (!at.IsSequence()) fail(walked + " is no list");
                if (!index || *index >= at.size())
                    fail(walked + " has " + std::to_string(at.size()) + " entries, no [" + path.substr(i + 1, close - i - 1) + "]");
                walked += path.substr(i, close + 1 - i);
                i = close + 1;
                step(static_cast<std::size_t>(*index), i == path.size());
            }
            if (i < path.size()) {
                if (path[i] != '.') fail("'" + path + "' is no key path");
                ++i;
            }
        }
    }
    return Node(value(root, value_->mark), source_, path_);
}

std::string Node::where() const {
    if (value_->mark.is_null()) return source_->file;
    return source_->file + ":" + std::to_string(value_->mark.line + 1) + ":" + std::to_string(value_->mark.column + 1);
}

void Node::fail(const std::string& message) const {
    throw ConfigError(one_line(where() + ": " + (path_.empty() ? std::string() : path_ + ": ") + message));
}

Node Node::operator[](std::string_view key) const {
    std::string child_path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    if (!value_->node.IsMap()) return Node(value(YAML::Node(YAML::NodeType::Undefined), value_->mark), source_, child_path);
    for (auto it = value_->node.begin(); it != value_->node.end(); ++it) {
        if (it->first.IsScalar() && it->first.Scalar() == key)
            return Node(value(it->second, mark_of(it->second, it->first.Mark())), source_, child_path);
    }
    return Node(value(YAML::Node(YAML::NodeType::Undefined), value_->mark), source_, child_path);
}

std::vector<Node> Node::items() const {
    if (!value_->node.IsSequence()) fail(defined() ? "expected a list" : "missing (expected a list)");
    std::vector<Node> out;
    std::size_t i = 0;
    for (const auto& child : value_->node) {
        out.emplace_back(Node(value(child, mark_of(child, value_->mark)), source_, path_ + "[" + std::to_string(i++) + "]"));
    }
    return out;
}

std::vector<std::pair<std::string, Node>> Node::entries() const {
    if (!value_->node.IsMap()) fail(defined() ? "expected a mapping of keys to values" : "missing (expected a mapping)");
    std::vector<std::pair<std::string, Node>> out;
    for (auto it = value_->node.begin(); it != value_->node.end(); ++it) {
        std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
        std::string child_path = path_.empty() ? key : path_ + "." + key;
        out.emplace_back(key, Node(value(it->second, mark_of(it->second, it->first.Mark())), source_, child_path));
    }
    return out;
}

void Node::allow_only(std::initializer_list<std::string_view> allowed) const {
    allow_only(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void Node::allow_only(const std::vector<std::string>& allowed) const {
    if (!defined()) return;
    if (!value_->node.IsMap()) fail("expected a mapping with keys: " + join(allowed));
    for (auto it = value_->node.begin(); it != value_->node.end(); ++it) {
        std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
        bool known = false;
        for (auto a : allowed) known = known || a == key;
        if (!known) {
            Node at(value(it->first, mark_of(it->first, value_->mark)), source_, path_.empty() ? key : path_ + "." + key);
            at.fail("unknown key (expected one of: " + join(allowed) + ")");
        }
    }
}

void Node::require(std::initializer_list<std::string_view> required) const {
    if (!value_->node.IsMap()) fail("expected a mapping with keys: " + join(required));
    for (auto key : required)
        if (!has(key)) fail("missing required key '" + std::string(key) + "'");
}

std::string Node::str() const {
    if (!defined()) fail("missing value");
    if (!value_->node.IsScalar()) fail("expected a single value, not a list or mapping");
    return value_->node.Scalar();
}

bool Node::boolean() const {
    std::string s = str();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail("expected true or false, got " + quoted(s));
}

std::uint64_t Node::integer() const {
    std::string s = str();
    if (auto v = parse_integer(s)) return *v;
    fail("expected a non-negative integer (decimal or 0x hex), got " + quoted(s));
}

std::uint32_t Node::u32() const {
    std::uint64_t v = integer();
    if (v > std::numeric_limits<std::uint32_t>::max()) fail("value " + quoted(str()) + " does not fit in 32 bits");
    return static_cast<std::uint32_t>(v);
}

std::uint64_t Node::size() const {
    std::string s = str();
    if (auto v = parse_size(s)) return *v;
    fail("expected a size such as 4096, 0x1000, 64KiB or 4MiB, got " + quoted(s));
}

std::uint64_t Node::frequency() const {
    std::string s = str();
    if (auto v = parse_frequency(s)) return *v;
    fail("expected a frequency such as 25MHz or 8000000, got " + quoted(s));
}

double Node::seconds() const {
    std::string s = str();
    if (auto v = parse_seconds(s)) return *v;
    fail("expected a duration such as 60s, 500ms or 10us, got " + quoted(s));
}

std::string Node::choice(std::initializer_list<std::string_view> choices) const {
    std::string s = str();
    for (auto c : choices)
        if (c == s) return s;
    fail(quoted(s) + " is not one of: " + join(choices));
}

}  // namespace emutrace::config

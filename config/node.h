#pragma once
// A YAML node that knows where it came from. Every accessor that rejects a value throws a
// ConfigError whose one-line message starts with "file:line:col: key.path:", and allow_only()
// turns unknown keys (typos) into errors instead of silently ignoring them.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/config_error.h"

namespace emutrace::config {

class Node {
public:
    /// Parses a YAML file; syntax errors become ConfigError with file:line:col.
    static Node load_file(const std::string& path);
    /// Parses YAML text; `name` stands for the file name in messages.
    static Node load_string(const std::string& text, const std::string& name);

    Node(const Node&) = default;
    /// Rebinds this Node (YAML::Node's own assignment would overwrite the referenced document node).
    Node& operator=(const Node& other) {
        node_.reset(other.node_);
        source_ = other.source_;
        path_ = other.path_;
        mark_ = other.mark_;
        return *this;
    }

    bool defined() const { return node_.IsDefined() && !node_.IsNull(); }
    bool is_map() const { return node_.IsMap(); }
    bool is_sequence() const { return node_.IsSequence(); }
    bool is_scalar() const { return node_.IsScalar(); }

    /// The child under `key`; an undefined Node when absent (accessors then fail naming it).
    Node operator[](std::string_view key) const;
    bool has(std::string_view key) const { return (*this)[key].defined(); }
    /// Elements of a sequence (an error if this is not one).
    std::vector<Node> items() const;
    /// Keys and values of a map, in file order (an error if this is not one).
    std::vector<std::pair<std::string, Node>> entries() const;
    /// Fails on the first key not in `allowed`, naming its line and the allowed keys.
    void allow_only(std::initializer_list<std::string_view> allowed) const;
    /// Fails unless every key in `required` is present.
    void require(std::initializer_list<std::string_view> required) const;

    std::string str() const;
    bool boolean() const;
    std::uint64_t integer() const;
    std::uint32_t u32() const;
    std::uint64_t size() const;       ///< 4096, 0x1000, 4KiB, 4MiB
    std::uint64_t frequency() const;  ///< 25MHz, 168 MHz, 8000000
    double seconds() const;           ///< 60s, 500ms, 10us
    /// One of `choices`; the error lists them.
    std::string choice(std::initializer_list<std::string_view> choices) const;


    /// "file:line:col" of this node (of its parent when it is absent).
    std::string where() const;
    /// Dotted path of this node from the document root, e.g. "peripherals[1].params.output".
    const std::string& path() const { return path_; }
    const std::string& file() const { return source_->file; }
    [[noreturn]] void fail(const std::string& message) const;

private:
    struct Source {
        std::string file;
    };
    Node(YAML::Node node, std::shared_ptr<const Source> source, std::string path, YAML::Mark mark)
        : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)), mark_(mark) {}
    YAML::Node node_;
    std::shared_ptr<const Source> source_;
    std::string path_;
    YAML::Mark mark_;  ///< position of the node, or of the key/parent when the node is absent
};

}  // namespace emutrace::config

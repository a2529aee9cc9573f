#include <doctest/doctest.h>

#include "emutrace/config.h"

using emutrace::ConfigError;
using emutrace::config::Node;

namespace {
std::string error_of(const std::string& yaml, auto&& use) {
    try {
        use(Node::load_string(yaml, "s.yaml"));
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("node: unknown keys name the file, line, column and path") {
    std::string msg = error_of("a: 1\nb:\n  c: 2\n  cc: 3\n", [](const Node& n) { n["b"].allow_only({"c"}); });
    CHECK(msg == "s.yaml:4:3: b.cc: unknown key (expected one of: c)");
}

TEST_CASE("node: syntax errors carry the position") {
    std::string msg = error_of("a: [1, 2\nb: 3\n", [](const Node&) {});
    CHECK(msg.rfind("s.yaml:", 0) == 0);
    CHECK(msg.find("YAML syntax error") != std::string::npos);
}

TEST_CASE("node: typed values and their errors") {
    Node n = Node::load_string("size: 4KiB\nclock: 8MHz\nflag: yes\nbad: 0xZZ\nlist: [1, 2]\n", "s.yaml");
    CHECK(n["size"].size() == 4096);
    CHECK(n["clock"].frequency() == 8'000'000);
    CHECK(n["flag"].boolean());
    CHECK(n["list"].items().size() == 2);
    CHECK(n["list"].items()[1].path() == "list[1]");
    CHECK_THROWS_WITH_AS(n["bad"].integer(), "s.yaml:4:6: bad: expected a non-negative integer (decimal or 0x hex), got '0xZZ'", ConfigError);
    CHECK_THROWS_WITH_AS(n["missing"].str(), doctest::Contains("missing: missing value"), ConfigError);
    CHECK_THROWS_AS(n["list"].u32(), ConfigError);
}

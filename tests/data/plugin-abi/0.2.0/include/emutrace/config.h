#pragma once
// A YAML node that knows where it came from. Every accessor that rejects a value throws a
// ConfigError whose one-line message starts with "file:line:col: key.path:", and allow_only()
// turns unknown keys (typos) into errors instead of silently ignoring them. Public: analyses
// parse their own scenario sections with it; the YAML library stays hidden behind it.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emutrace/config_error.h"

namespace emutrace::config {

class Node {
public:
    /// Parses a YAML file; syntax errors become ConfigError with file:line:col.
    static Node load_file(const std::string& path);
    /// Parses YAML text; `name` stands for the file name in messages.
    static Node load_string(const std::string& text, const std::string& name);

    bool defined() const;
    bool is_map() const;
    bool is_sequence() const;
    bool is_scalar() const;

    /// The child under `key`; an undefined Node when absent (accessors then fail naming it).
    Node operator[](std::string_view key) const;
    bool has(std::string_view key) const { return (*this)[key].defined(); }
    /// Elements of a sequence (an error if this is not one).
    std::vector<Node> items() const;
    /// Keys and values of a map, in file order (an error if this is not one).
    std::vector<std::pair<std::string, Node>> entries() const;
    /// Fails on the first key not in `allowed`, naming its line and the allowed keys.
    void allow_only(std::initializer_list<std::string_view> allowed) const;
    void allow_only(const std::vector<std::string>& allowed) const;
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

    struct Value;  ///< the YAML node and its position (of the key or parent when absent); opaque

private:
    struct Source {
        std::string file;
    };
    Node(std::shared_ptr<const Value> value, std::shared_ptr<const Source> source, std::string path)
        : value_(std::move(value)), source_(std::move(source)), path_(std::move(path)) {}
    std::shared_ptr<const Value> value_;
    std::shared_ptr<const Source> source_;
    std::string path_;
};

}  // namespace emutrace::config

#include "app/cli/command_line.h"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace emutrace::app::cli {

Option& Option::required() {
    o_->required();
    return *this;
}
Option& Option::existing_file() {
    o_->check(CLI::ExistingFile);
    return *this;
}
Option& Option::existing_directory() {
    o_->check(CLI::ExistingDirectory);
    return *this;
}
Option& Option::one_of(const std::vector<std::string>& values) {
    o_->check(CLI::IsMember(values));
    return *this;
}
Option& Option::range(double low, double high) {
    o_->check(CLI::Range(low, high));
    return *this;
}
Option& Option::count_range(long long low, long long high) {
    o_->check(CLI::Range(low, high));
    return *this;
}
Option& Option::non_negative() {
    o_->check(CLI::NonNegativeNumber);
    return *this;
}
Option& Option::type_name(const std::string& name) {
    o_->type_name(name);
    return *this;
}
Option& Option::no_extra_args() {
    o_->allow_extra_args(false);
    return *this;
}
bool Option::given() const {
    return o_->count() > 0;
}

Option Command::option(const std::string& names, std::string& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, std::vector<std::string>& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, unsigned& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, std::uint64_t& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, double& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, std::optional<std::string>& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::option(const std::string& names, std::optional<std::uint64_t>& into, const std::string& help) {
    return Option(app_->add_option(names, into, help));
}
Option Command::flag(const std::string& names, bool& into, const std::string& help) {
    return Option(app_->add_flag(names, into, help));
}
Option Command::flag(const std::string& names, const std::string& help) {
    return Option(app_->add_flag(names, help));
}
bool Command::has_option(const std::string& name) const {
    return app_->get_option_no_throw(name) != nullptr;
}
Command Command::subcommand(const std::string& name, const std::string& description) {
    return Command(app_->add_subcommand(name, description));
}
void Command::footer(const std::string& text) {
    app_->footer(text);
}
bool Command::given() const {
    return app_->parsed();
}

Parser::Parser(const std::string& description) : app_(std::make_unique<CLI::App>(description)) {
    app_->require_subcommand(1);
    app_->fallthrough();  // --plugin may come after the subcommand
}
Parser::~Parser() = default;

Command Parser::root() {
    return Command(app_.get());
}

int Parser::parse(int argc, char** argv) {
    try {
        app_->parse(argc, argv);
        return -1;
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app_->exit(e);  // --help
        std::fprintf(stderr, "emutrace: error: %s (see 'emutrace --help')\n", e.what());
        return 2;
    }
}

}  // namespace emutrace::app::cli

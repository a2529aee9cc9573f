// Runs a firmware with the built-in analyses, as a program linking libemutrace would.
#include <emutrace/emutrace.h>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    try {
        emutrace::RunRequest request;
        request.firmware = argv[1];
        request.options["calltrace"] = "";
        request.machine.echo_output = false;
        emutrace::Session session(emutrace::AnalysisRegistry::builtin(), request);
        emutrace::RunReport report = session.run();
        std::printf("%s %llu instructions, analyses:", emutrace::version(), static_cast<unsigned long long>(report.totals.instructions));
        for (const auto& a : session.analyses()) std::printf(" %s", a.c_str());
        std::printf("\n");
        return report.status;
    } catch (const emutrace::ConfigError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
}

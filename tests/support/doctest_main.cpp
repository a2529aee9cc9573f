#define DOCTEST_CONFIG_IMPLEMENT
#include "support/doctest_run.h"

REGISTER_LISTENER("filter_count", 1, emutrace::test::FilterCountListener);

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    return emutrace::test::run_doctest(context, argc, argv);
}

"""The command line the Python benchmarks share: `[--repeat N] BUILD_DIR`."""
import os, sys

def repeat_and_build(doc, repeat):
    """(rounds, absolute build folder) from sys.argv; prints `doc` and exits on --help (0) or a bad line (2)."""
    args = sys.argv[1:]
    if args[:1] == ["--repeat"] and len(args) > 1 and args[1].isdigit():
        repeat, args = max(1, int(args[1])), args[2:]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(doc)
        sys.exit(0 if args[:1] in (["-h"], ["--help"]) else 2)
    return repeat, os.path.abspath(args[0])

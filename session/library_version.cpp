// The shared library's one source of its own; everything else comes from the modules.

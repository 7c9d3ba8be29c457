# Writes the stdlib prelude into a C++ source as a string the compiler parses first.
file(READ ${INPUT} CONTENT)
# A raw string literal needs no escaping; the delimiter must not occur in the text.
file(WRITE ${OUTPUT} "// Generated from stdlib/stdlib.spmd by EmbedStdlib.cmake.\n"
  "#include \"stdlib/Stdlib.h\"\n"
  "namespace spmdc {\n"
  "const char *const StdlibSource = R\"spmdc_stdlib(${CONTENT})spmdc_stdlib\";\n"
  "}\n")

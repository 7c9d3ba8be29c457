# Writes the stdlib prelude into a C++ source as a string the compiler parses first:
# stdlib.spmd (declarations and hooks), then math.spmd twice, once with SPMD_Q
# defined as `uniform` and once as `varying`, so both overloads share one text.
file(READ ${INPUT} CONTENT)
file(READ ${MATH_INPUT} MATH)
string(APPEND CONTENT
  "\n#define SPMD_Q uniform\n" "${MATH}" "#undef SPMD_Q\n"
  "#define SPMD_Q varying\n" "${MATH}" "#undef SPMD_Q\n")
# A raw string literal needs no escaping; the delimiter must not occur in the text.
file(WRITE ${OUTPUT} "// Generated from stdlib/stdlib.spmd and stdlib/math.spmd by EmbedStdlib.cmake.\n"
  "#include \"stdlib/Stdlib.h\"\n"
  "namespace spmdc {\n"
  "const char *const StdlibSource = R\"spmdc_stdlib(${CONTENT})spmdc_stdlib\";\n"
  "}\n")

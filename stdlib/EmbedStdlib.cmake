# Writes the stdlib prelude into a C++ source as a string the compiler parses first:
# stdlib.spmd (declarations and hooks), then math.spmd and library.spmd twice, once
# with SPMD_Q defined as `uniform` (SPMD_VARYING_PASS 0) and once as `varying`
# (SPMD_VARYING_PASS 1), so both overloads share one text.
file(READ ${INPUT} CONTENT)
file(READ ${MATH_INPUT} MATH)
file(READ ${LIBRARY_INPUT} LIBRARY)
string(APPEND CONTENT
  "\n#define SPMD_Q uniform\n#define SPMD_VARYING_PASS 0\n" "${MATH}" "${LIBRARY}"
  "#undef SPMD_Q\n#undef SPMD_VARYING_PASS\n"
  "#define SPMD_Q varying\n#define SPMD_VARYING_PASS 1\n" "${MATH}" "${LIBRARY}"
  "#undef SPMD_Q\n#undef SPMD_VARYING_PASS\n"
  # stdlib.spmd's macros that both passes read
  "#undef SPMD_X86_FMA\n")
# A raw string literal needs no escaping; the delimiter must not occur in the text.
file(WRITE ${OUTPUT} "// Generated from stdlib/stdlib.spmd and stdlib/math.spmd by EmbedStdlib.cmake.\n"
  "#include \"stdlib/Stdlib.h\"\n"
  "namespace spmdc {\n"
  "const char *const StdlibSource = R\"spmdc_stdlib(${CONTENT})spmdc_stdlib\";\n"
  "}\n")

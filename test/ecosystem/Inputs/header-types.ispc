// Exports that use every kind of C type ISPC's header spells: integers of each width, bool,
// float16, double, enums, structs by pointer and nested in structs, arrays, const pointers,
// references, and a return value. -DNO_FLOAT16 leaves float16 out for C compilers without
// __fp16 (GCC on x86).
#ifdef NO_FLOAT16
#define HALF float
#else
#define HALF float16
#endif
struct Inner { int8 a; double b; };
struct Outer { Inner inn[2]; float *p; uniform int c[3][4]; bool flag; HALF hh; };
enum Color { RED, GREEN = 3, BLUE };
export uniform bool is_green(uniform Color c) { return c == GREEN; }
export void take_ref(uniform Inner &r) { r.a = 1; }
export void many(uniform Outer o[], uniform Color e, uniform bool b, uniform int64 x,
                 uniform uint8 y, uniform HALF z, uniform double * uniform d,
                 const uniform int * uniform ci, uniform uint32 u, uniform int16 s) {}
export uniform int count_up(uniform int x) { return x + 1; }

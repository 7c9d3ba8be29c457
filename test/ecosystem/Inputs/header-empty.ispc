// One export with an array parameter, no structs or enums.
export void scale(uniform float a[], uniform int n) {}

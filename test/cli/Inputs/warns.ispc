// A program with a warning (from #warning).
#warning "check the warning flags"
export void f(uniform int a[]) { a[0] = 1; }

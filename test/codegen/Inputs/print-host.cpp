// Calls two objects that both print; no spmdc library is linked (ISPC objects need none).
extern "C" void show(int);
extern "C" void show_too(int);
int main() {
  show(3);
  show_too(2);
  show(200); // fails the assertion
}

// Accuracy harness for the stdlib math functions: runs the exported kernels of
// math_kernels.spmd on deterministic inputs spread over each domain plus special
// values, compares with libm in higher precision (double libm for float, x87 long
// double libm for double) and prints the max ulp error and where it occurs.
//
// usage: math_harness [--n N] [--check] [--special] [FUNC...]
//   --n N      random inputs per function, type and domain (default 1000000)
//   --lib L    the library built (accurate, default or fast: which float bounds)
//   --check    exit 1 if a bound of kBounds is exceeded or the uniform and varying
//              forms disagree
//   --libc F,G the double forms of F, G are the C library's (sse4 under the default and
//              fast libraries, stdlib/math.spmd SPMD_SSE4_LIBC): instead of the bound,
//              their results must be the C library's bit for bit
//   --special  print the results on special values (for FileCheck) instead
//   --bench    print the throughput (ns per element) of the varying and uniform
//              forms and of a scalar libm loop (sinf, sin, ...) on the first domain
//   --sweep S  float unary functions: every S-th float (by bit pattern, both signs) of
//              the function's float domain through the varying form, max error
//              against double libm (S = 1: every float)
// Output is deterministic, so runs on different targets can be compared textually.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

// Weak: a module built with -DWANT_SOME -DWANT_<name> holds only some of them.
extern "C" {
#define DECL(NAME, T)                                                                              \
  void NAME##_##T##_v(const T *, const T *, T *, int32_t) __attribute__((weak));                   \
  void NAME##_##T##_u(const T *, const T *, T *, int32_t) __attribute__((weak));
#define DECL_ALL(T)                                                                                \
  DECL(exp, T)                                                                                     \
  DECL(log, T) DECL(sin, T) DECL(cos, T) DECL(tan, T) DECL(asin, T) DECL(acos, T) DECL(atan, T)    \
      DECL(atan2, T) DECL(pow, T) DECL(expm1, T) DECL(log1p, T) DECL(sinh, T) DECL(cosh, T)      \
          DECL(tanh, T) DECL(cbrt, T) DECL(fmod, T) DECL(erf, T) DECL(erfc, T)
DECL_ALL(float)
DECL_ALL(double)
}

namespace {

using Kernel = void (*)(const void *, const void *, void *, int32_t);
using LD = long double;

/// The asserted bound (ulp) of each function: float (--lib accurate: the max error
/// measured on 1,000,000 inputs per domain, docs/stdlib.md, plus a small margin; the
/// float kernels compute in float, expm1 .. erfc: the double kernel rounded once; every
/// float bound below 1 ulp), double (every library), float of the default library
/// (--lib default: the kernels of --math-lib=default; the max error of
/// tools/ulp/compare-ispc.py plus a margin; ISPC's default float kernels measure more on
/// every function) and float of the fast library (--lib fast: --math-lib=fast, the default
/// kernels but for log, log1p, pow, tanh, asin and acos; ISPC's fast kernels measure more
/// but for tanh, and as much for acos: its form and degree, docs/stdlib.md). fmod is exact.
struct Bound {
  const char *Func;
  double Float, Double, DefaultFloat, FastFloat;
};
const Bound kBounds[] = {
    {"exp", 0.80, 0.80, 1.0, 1.0},     {"log", 0.85, 0.90, 1.0, 5.0},
    {"sin", 0.80, 0.85, 3.0, 3.0},     {"cos", 0.80, 0.85, 5.0, 5.0},
    {"tan", 0.95, 1.10, 5.0, 5.0},     {"asin", 0.90, 0.90, 1.5, 4.0},
    {"acos", 0.95, 0.95, 2.1, 14.0},   {"atan", 0.70, 0.80, 3.0, 3.0},
    {"atan2", 0.70, 1.15, 2.0, 2.0},   {"pow", 0.70, 1.15, 25.0, 500.0},
    {"expm1", 0.55, 0.75, 1.6, 1.6},   {"log1p", 0.55, 0.90, 1.0, 5.0},
    {"sinh", 0.55, 1.25, 2.5, 2.5},    {"cosh", 0.55, 1.20, 1.6, 1.6},
    {"tanh", 0.55, 1.55, 2.5, 6.5},    {"cbrt", 0.55, 0.70, 1.0, 1.0},
    {"fmod", 0.0, 0.0, 0.0, 0.0},      {"erf", 0.55, 0.95, 2.3, 2.3},
    {"erfc", 0.55, 2.80, 3.0, 3.0}};
enum class Lib { Accurate, Default, Fast };
Lib FloatLib = Lib::Accurate; // --lib
std::vector<std::string> LibcDouble; // --libc

bool isLibc(const std::string &F, bool IsFloat) {
  return !IsFloat && std::find(LibcDouble.begin(), LibcDouble.end(), F) != LibcDouble.end();
}

double boundOf(const std::string &F, bool IsFloat) {
  for (const Bound &B : kBounds)
    if (F == B.Func)
      return !IsFloat                      ? B.Double
             : FloatLib == Lib::Default    ? B.DefaultFloat
             : FloatLib == Lib::Fast       ? B.FastFloat
                                           : B.Float;
  return 0;
}

struct Rng { // splitmix64: the same sequence everywhere
  uint64_t S;
  uint64_t next() {
    uint64_t Z = (S += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  double unit() { return (next() >> 11) * 0x1p-53; } // [0, 1)
  double range(double Lo, double Hi) { return Lo + (Hi - Lo) * unit(); }
  /// |x| log-uniform in [2^Lo, 2^Hi], random sign if Signed.
  double logUniform(double Lo, double Hi, bool Signed) {
    double V = std::exp2(range(Lo, Hi));
    return Signed && (next() & 1) ? -V : V;
  }
};

/// A domain: a name and a generator of (x, y) pairs.
struct Domain {
  const char *Name;
  void (*Gen)(Rng &, double &, double &, bool IsFloat);
};

LD refUnary(const std::string &F, LD X, bool IsFloat) {
  if (IsFloat) {
    double D = (double)X;
    if (F == "exp")
      return std::exp(D);
    if (F == "log")
      return std::log(D);
    if (F == "sin")
      return std::sin(D);
    if (F == "cos")
      return std::cos(D);
    if (F == "tan")
      return std::tan(D);
    if (F == "asin")
      return std::asin(D);
    if (F == "acos")
      return std::acos(D);
    if (F == "expm1")
      return std::expm1(D);
    if (F == "log1p")
      return std::log1p(D);
    if (F == "sinh")
      return std::sinh(D);
    if (F == "cosh")
      return std::cosh(D);
    if (F == "tanh")
      return std::tanh(D);
    if (F == "cbrt")
      return std::cbrt(D);
    if (F == "erf")
      return std::erf(D);
    if (F == "erfc")
      return std::erfc(D);
    return std::atan(D);
  }
  if (F == "expm1")
    return expm1l(X);
  if (F == "log1p")
    return log1pl(X);
  if (F == "sinh")
    return sinhl(X);
  if (F == "cosh")
    return coshl(X);
  if (F == "tanh")
    return tanhl(X);
  if (F == "cbrt")
    return cbrtl(X);
  if (F == "erf")
    return erfl(X);
  if (F == "erfc")
    return erfcl(X);
  if (F == "exp")
    return expl(X);
  if (F == "log")
    return logl(X);
  if (F == "sin")
    return sinl(X);
  if (F == "cos")
    return cosl(X);
  if (F == "tan")
    return tanl(X);
  if (F == "asin")
    return asinl(X);
  if (F == "acos")
    return acosl(X);
  return atanl(X);
}

LD reference(const std::string &F, LD X, LD Y, bool IsFloat) {
  if (F == "atan2")
    return IsFloat ? (LD)std::atan2((double)X, (double)Y) : atan2l(X, Y);
  if (F == "pow")
    return IsFloat ? (LD)std::pow((double)X, (double)Y) : powl(X, Y);
  if (F == "fmod") // exact in every precision
    return fmodl(X, Y);
  return refUnary(F, X, IsFloat);
}

/// The C library's double F(X, Y), for the functions that --libc names.
double libcDouble(const std::string &F, double X, double Y) {
  static const std::pair<const char *, double (*)(double)> Unary[] = {
      {"exp", ::exp},   {"log", ::log},   {"asin", ::asin}, {"acos", ::acos},
      {"expm1", ::expm1}, {"sinh", ::sinh}, {"cosh", ::cosh}, {"tanh", ::tanh},
      {"erf", ::erf},   {"erfc", ::erfc}, {"sin", ::sin},   {"cos", ::cos},
      {"tan", ::tan},   {"atan", ::atan}, {"log1p", ::log1p}, {"cbrt", ::cbrt}};
  if (F == "pow")
    return ::pow(X, Y);
  if (F == "atan2")
    return ::atan2(X, Y);
  for (const auto &[Name, Fn] : Unary)
    if (F == Name)
      return Fn(X);
  return NAN;
}

/// Whether Got is the C library's result bit for bit (any NaN for a NaN).
bool isLibcResult(const std::string &F, double X, double Y, double Got) {
  double Want = libcDouble(F, X, Y);
  return std::isnan(Want) ? std::isnan(Got) : std::memcmp(&Want, &Got, sizeof Got) == 0;
}

/// Error of Got against the exact Ref in ulps of the type (24 or 53 bits), with
/// the ulp of subnormals fixed at the smallest subnormal. Special values must match.
double ulpError(LD Got, LD Ref, bool IsFloat) {
  int Bits = IsFloat ? 24 : 53, MinExp = IsFloat ? -126 : -1022;
  if (std::isnan(Ref) || std::isnan(Got))
    return std::isnan(Ref) && std::isnan(Got) ? 0 : INFINITY;
  LD Rounded = IsFloat ? (LD)(float)Ref : (LD)(double)Ref;
  if (std::isinf(Got) || std::isinf(Rounded))
    return Got == Rounded ? 0 : INFINITY;
  if (Ref == 0 && Got == 0)
    return std::signbit(Ref) == std::signbit(Got) ? 0 : INFINITY;
  int E = Ref == 0 ? MinExp : std::max(ilogbl(Ref), MinExp);
  return (double)(fabsl(Got - Ref) / ldexpl(1.0L, E - Bits + 1));
}

const double Pi = 3.14159265358979323846;

std::vector<Domain> domainsOf(const std::string &F) {
  auto D = [](const char *N, void (*G)(Rng &, double &, double &, bool)) { return Domain{N, G}; };
  if (F == "exp")
    return {D("[-704, 704] (float: [-103, 88])",
              [](Rng &R, double &X, double &, bool Fl) {
                X = Fl ? R.range(-103, 88.7) : R.range(-745, 709.7);
              }),
            D("[-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); })};
  if (F == "log")
    return {D("(0, max] log-uniform",
              [](Rng &R, double &X, double &, bool Fl) {
                X = Fl ? R.logUniform(-149, 128, false) : R.logUniform(-1074, 1024, false);
              }),
            D("[0.5, 2]", [](Rng &R, double &X, double &, bool) { X = R.range(0.5, 2); })};
  if (F == "sin" || F == "cos" || F == "tan")
    return {D("[-pi, pi]", [](Rng &R, double &X, double &, bool) { X = R.range(-Pi, Pi); }),
            D("[-1e4, 1e4]", [](Rng &R, double &X, double &, bool) { X = R.range(-1e4, 1e4); }),
            D("[-1e6, 1e6]", [](Rng &R, double &X, double &, bool) { X = R.range(-1e6, 1e6); })};
  if (F == "asin" || F == "acos")
    return {D("[-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); }),
            D("|x| in [2^-30, 1] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = R.logUniform(-30, 0, true); })};
  if (F == "atan")
    return {D("[-4, 4]", [](Rng &R, double &X, double &, bool) { X = R.range(-4, 4); }),
            D("|x| in [2^-40, 2^40] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = R.logUniform(-40, 40, true); })};
  if (F == "atan2")
    return {D("y, x in [-10, 10]", [](Rng &R, double &Y, double &X,
                                      bool) { Y = R.range(-10, 10), X = R.range(-10, 10); }),
            D("|y|, |x| in [2^-60, 2^60] log-uniform", [](Rng &R, double &Y, double &X, bool) {
              Y = R.logUniform(-60, 60, true), X = R.logUniform(-60, 60, true);
            })};
  if (F == "expm1")
    return {D("[-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); }),
            D("[-40, 709.7] (float: [-20, 88.7])",
              [](Rng &R, double &X, double &, bool Fl) {
                X = Fl ? R.range(-20, 88.7) : R.range(-40, 709.7);
              }),
            D("|x| in [2^-60, 1] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = R.logUniform(-60, 0, true); })};
  if (F == "log1p")
    return {D("(-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); }),
            D("x in [2^-60, max] log-uniform",
              [](Rng &R, double &X, double &, bool Fl) {
                X = R.logUniform(-60, Fl ? 127 : 1023, false);
              }),
            D("x in (-1, -2^-60] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = -R.logUniform(-60, -1e-9, false); })};
  if (F == "sinh" || F == "cosh" || F == "tanh")
    return {D("[-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); }),
            D("[-30, 30]", [](Rng &R, double &X, double &, bool) { X = R.range(-30, 30); }),
            D("[-710, 710] (float: [-89, 89])",
              [](Rng &R, double &X, double &, bool Fl) {
                X = Fl ? R.range(-89, 89) : R.range(-710, 710);
              }),
            D("|x| in [2^-40, 8] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = R.logUniform(-40, 3, true); })};
  if (F == "cbrt")
    return {D("[-10, 10]", [](Rng &R, double &X, double &, bool) { X = R.range(-10, 10); }),
            D("|x| in [min, max] log-uniform (subnormals included)",
              [](Rng &R, double &X, double &, bool Fl) {
                X = Fl ? R.logUniform(-149, 127.9, true) : R.logUniform(-1074, 1023.9, true);
              })};
  if (F == "erf" || F == "erfc")
    return {D("[-1, 1]", [](Rng &R, double &X, double &, bool) { X = R.range(-1, 1); }),
            D("[-6, 28]", [](Rng &R, double &X, double &, bool) { X = R.range(-6, 28); }),
            D("|x| in [2^-60, 8] log-uniform",
              [](Rng &R, double &X, double &, bool) { X = R.logUniform(-60, 3, true); })};
  if (F == "fmod")
    return {D("|x|, |y| in [2^-20, 2^20] log-uniform",
              [](Rng &R, double &X, double &Y, bool) {
                X = R.logUniform(-20, 20, true), Y = R.logUniform(-20, 20, true);
              }),
            D("|x|, |y| in [min, max] log-uniform",
              [](Rng &R, double &X, double &Y, bool Fl) {
                X = Fl ? R.logUniform(-149, 127.9, true) : R.logUniform(-1074, 1023.9, true);
                Y = Fl ? R.logUniform(-149, 127.9, true) : R.logUniform(-1074, 1023.9, true);
              }),
            // x near an integer multiple k y, k < 2^22 log-uniform (the estimated quotient's
            // boundary, where q is Q or Q + 1; exact multiples included)
            D("x = k y (1 + e), k < 2^22, |e| < 2^-20 or 0",
              [](Rng &R, double &X, double &Y, bool) {
                Y = R.logUniform(-30, 30, true);
                double K = std::floor(R.logUniform(0, 22, false));
                double E = R.range(0, 1) < 0.25 ? 0.0 : R.range(-1, 1) * std::ldexp(1.0, -20);
                X = K * Y * (1 + E) * (R.range(0, 1) < 0.5 ? 1 : -1);
              })};
  // pow: x log-uniform, y such that |y log x| stays below the overflow threshold,
  // which is where a plain exp(y * log(x)) loses most.
  return {D("x in [0, 10], y in [-20, 20]",
            [](Rng &R, double &X, double &Y, bool) { X = R.range(0, 10), Y = R.range(-20, 20); }),
          D("x in [2^-30, 2^30], |y log x| < 700 (float: 87)",
            [](Rng &R, double &X, double &Y, bool Fl) {
              X = R.logUniform(-30, 30, false);
              Y = R.range(-1, 1) * (Fl ? 87 : 700) / std::fabs(std::log(X) + 1e-300);
            }),
          D("x < 0, integer y in [-40, 40]", [](Rng &R, double &X, double &Y, bool) {
            X = -R.range(0.25, 4), Y = std::floor(R.range(-40, 41));
          })};
}

const char *kFuncs[] = {"exp",  "log",  "sin",   "cos",   "tan",  "asin", "acos", "atan", "atan2",
                        "pow",  "expm1", "log1p", "sinh", "cosh", "tanh", "cbrt", "fmod", "erf", "erfc"};

Kernel kernel(const std::string &F, bool IsFloat, bool Varying) {
#define K(NAME)                                                                                    \
  if (F == #NAME)                                                                                  \
    return IsFloat ? (Varying ? (Kernel)NAME##_float_v : (Kernel)NAME##_float_u)                   \
                   : (Varying ? (Kernel)NAME##_double_v : (Kernel)NAME##_double_u);
  K(exp)
  K(log) K(sin) K(cos) K(tan) K(asin) K(acos) K(atan) K(atan2) K(pow) K(expm1) K(log1p) K(sinh)
      K(cosh) K(tanh) K(cbrt) K(fmod) K(erf) K(erfc)
#undef K
      return nullptr;
}

bool isBinary(const std::string &F) { return F == "atan2" || F == "pow" || F == "fmod"; }

/// Runs F on X (and Y) in both forms; returns false if they disagree bitwise.
template <typename T>
bool runBoth(const std::string &F, const std::vector<T> &X, const std::vector<T> &Y,
             std::vector<T> &R) {
  bool IsFloat = sizeof(T) == 4;
  std::vector<T> U(X.size());
  R.assign(X.size(), 0);
  kernel(F, IsFloat, true)(X.data(), Y.data(), R.data(), (int32_t)X.size());
  kernel(F, IsFloat, false)(X.data(), Y.data(), U.data(), (int32_t)X.size());
  return std::memcmp(R.data(), U.data(), R.size() * sizeof(T)) == 0;
}

uint64_t fnv(uint64_t H, const void *P, size_t N) {
  const unsigned char *B = (const unsigned char *)P;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 0x100000001b3ull;
  return H;
}

template <typename T> bool measure(const std::string &F, long N, bool Check) {
  bool IsFloat = sizeof(T) == 4, Ok = true;
  const char *TN = IsFloat ? "float" : "double";
  for (const Domain &Dom : domainsOf(F)) {
    Rng R{0x5eed0000ull + fnv(14695981039346656037ull, F.data(), F.size()) + (IsFloat ? 1 : 2)};
    std::vector<T> X(N), Y(N, T(0)), Out;
    for (long I = 0; I < N; ++I) {
      double A = 0, B = 0;
      Dom.Gen(R, A, B, IsFloat);
      X[I] = (T)A, Y[I] = (T)B;
    }
    bool Same = runBoth(F, X, Y, Out);
    double Max = 0;
    long At = 0;
    double Sum = 0;
    for (long I = 0; I < N; ++I) {
      double E = ulpError((LD)Out[I], reference(F, X[I], Y[I], IsFloat), IsFloat);
      Sum += E;
      if (E > Max || std::isnan(E))
        Max = E, At = I;
    }
    bool Libc = isLibc(F, IsFloat);
    long NotLibc = 0;
    for (long I = 0; Libc && I < N; ++I)
      NotLibc += !isLibcResult(F, (double)X[I], (double)Y[I], (double)Out[I]);
    bool Pass = Same && (Libc ? NotLibc == 0 : Max <= boundOf(F, IsFloat));
    Ok = Ok && Pass;
    std::printf("%-5s %-6s %-48s n=%ld max %.3f ulp at x=%.17g", F.c_str(), TN, Dom.Name, N, Max,
                (double)X[At]);
    if (isBinary(F))
      std::printf(" y=%.17g", (double)Y[At]);
    std::printf(" mean %.3f%s%s", Sum / N, Same ? "" : " UNIFORM/VARYING DIFFER",
                Check && !Pass ? " FAIL" : "");
    if (Libc)
      std::printf(" (c library: %ld differ)", NotLibc);
    std::printf("\n");
    std::printf("  results hash %016" PRIx64 "\n",
                fnv(14695981039346656037ull, Out.data(), Out.size() * sizeof(T)));
  }
  return Ok;
}

/// Special values: every pair of them through every function, printed exactly.
template <typename T> bool special(const std::string &F) {
  const T Inf = std::numeric_limits<T>::infinity(), Nan = std::numeric_limits<T>::quiet_NaN();
  const T Max = std::numeric_limits<T>::max(), Den = std::numeric_limits<T>::denorm_min();
  std::vector<T> Vals = {0,   -T(0), 1,   -1,  T(0.5), -T(0.5), 2,    -2,       3,       -3,
                         Inf, -Inf,  Nan, Max, -Max,   Den,     -Den, T(1e-30), T(1000), -T(1000)};
  // sin, cos and tan are accurate for |x| < 1.6e6 only (Cody-Waite reduction,
  // docs/stdlib.md): their huge arguments are not special values.
  if (F == "sin" || F == "cos" || F == "tan")
    Vals.erase(Vals.begin() + 13, Vals.begin() + 15);
  std::vector<T> X, Y, R;
  for (T A : Vals)
    for (T B : isBinary(F) ? Vals : std::vector<T>{0})
      X.push_back(A), Y.push_back(B);
  bool Same = runBoth(F, X, Y, R);
  bool IsFloat = sizeof(T) == 4, Ok = Same;
  long Bad = 0;
  for (size_t I = 0; I < X.size(); ++I) {
    LD Ref = reference(F, X[I], Y[I], IsFloat);
    // Exact agreement on special results (NaN, inf, zeros with sign, pi multiples
    // within the bound); ordinary results within the bound.
    double E = ulpError((LD)R[I], Ref, IsFloat);
    bool Good = isLibc(F, IsFloat) ? isLibcResult(F, (double)X[I], (double)Y[I], (double)R[I])
                                   : E <= boundOf(F, IsFloat);
    if (!Good) {
      ++Bad;
      std::printf("%s %s(%.9g, %.9g) = %.17g, C gives %.17Lg\n", IsFloat ? "float" : "double",
                  F.c_str(), (double)X[I], (double)Y[I], (double)R[I], Ref);
    }
  }
  std::printf("%-5s %-6s special values: %zu cases, %ld wrong%s\n", F.c_str(),
              IsFloat ? "float" : "double", X.size(), Bad, Same ? "" : ", UNIFORM/VARYING DIFFER");
  return Ok && Bad == 0;
}

/// The float domain a sweep covers: where the function is specified to be accurate.
void sweepDomain(const std::string &F, float &Lo, float &Hi) {
  const float Inf = std::numeric_limits<float>::infinity();
  Lo = -Inf, Hi = Inf;
  if (F == "exp")
    Lo = -110, Hi = 90;
  else if (F == "sin" || F == "cos" || F == "tan")
    Lo = -1.6e6f, Hi = 1.6e6f;
  else if (F == "asin" || F == "acos")
    Lo = -1, Hi = 1;
  else if (F == "log")
    Lo = 0;
}

/// Every Stride-th float of F's float domain, in batches through the varying kernel.
void sweep(const std::string &F, uint32_t Stride) {
  float Lo, Hi;
  sweepDomain(F, Lo, Hi);
  Kernel K = kernel(F, true, true);
  const size_t Batch = 1 << 20;
  std::vector<float> X, Out(Batch);
  X.reserve(Batch);
  double Max = 0;
  float At = 0;
  long N = 0;
  auto Flush = [&] {
    K(X.data(), X.data(), Out.data(), (int32_t)X.size());
    for (size_t I = 0; I < X.size(); ++I) {
      double E = ulpError((LD)Out[I], refUnary(F, X[I], true), true);
      if (E > Max || std::isnan(E))
        Max = E, At = X[I];
    }
    N += X.size();
    X.clear();
  };
  for (uint32_t Sign : {0u, 0x80000000u})
    for (uint64_t Bits = 0; Bits <= 0x7f800000u; Bits += Stride) {
      uint32_t U = (uint32_t)Bits | Sign;
      float V;
      std::memcpy(&V, &U, sizeof V);
      if (!(V >= Lo && V <= Hi))
        continue;
      X.push_back(V);
      if (X.size() == Batch)
        Flush();
    }
  Flush();
  std::printf("%-5s float  sweep of [%g, %g], every %u-th float: n=%ld max %.3f ulp at x=%.9g\n",
              F.c_str(), Lo, Hi, Stride, N, Max, At);
}

template <typename T> using LibmFn = T (*)(T, T);

template <typename T> LibmFn<T> libmFunction(const std::string &F) {
  if (F == "exp")
    return [](T X, T) { return std::exp(X); };
  if (F == "log")
    return [](T X, T) { return std::log(X); };
  if (F == "sin")
    return [](T X, T) { return std::sin(X); };
  if (F == "cos")
    return [](T X, T) { return std::cos(X); };
  if (F == "tan")
    return [](T X, T) { return std::tan(X); };
  if (F == "asin")
    return [](T X, T) { return std::asin(X); };
  if (F == "acos")
    return [](T X, T) { return std::acos(X); };
  if (F == "atan")
    return [](T X, T) { return std::atan(X); };
  if (F == "atan2")
    return [](T X, T Y) { return std::atan2(X, Y); };
  if (F == "expm1")
    return [](T X, T) { return std::expm1(X); };
  if (F == "log1p")
    return [](T X, T) { return std::log1p(X); };
  if (F == "sinh")
    return [](T X, T) { return std::sinh(X); };
  if (F == "cosh")
    return [](T X, T) { return std::cosh(X); };
  if (F == "tanh")
    return [](T X, T) { return std::tanh(X); };
  if (F == "cbrt")
    return [](T X, T) { return std::cbrt(X); };
  if (F == "fmod")
    return [](T X, T Y) { return std::fmod(X, Y); };
  if (F == "erf")
    return [](T X, T) { return std::erf(X); };
  if (F == "erfc")
    return [](T X, T) { return std::erfc(X); };
  return [](T X, T Y) { return std::pow(X, Y); };
}

/// Best of 5 runs over N elements, in ns per element.
template <typename Fn> double timeIt(long N, Fn Body) {
  double Best = 1e30;
  for (int Rep = 0; Rep < 5; ++Rep) {
    auto T0 = std::chrono::steady_clock::now();
    Body();
    double Ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - T0).count();
    Best = std::min(Best, Ns / N);
  }
  return Best;
}

template <typename T> void bench(const std::string &F, long N) {
  bool IsFloat = sizeof(T) == 4;
  Rng R{42};
  std::vector<T> X(N), Y(N), Out(N);
  for (long I = 0; I < N; ++I) {
    double A = 0, B = 0;
    domainsOf(F)[0].Gen(R, A, B, IsFloat);
    X[I] = (T)A, Y[I] = (T)B;
  }
  double V =
      timeIt(N, [&] { kernel(F, IsFloat, true)(X.data(), Y.data(), Out.data(), (int32_t)N); });
  double U =
      timeIt(N, [&] { kernel(F, IsFloat, false)(X.data(), Y.data(), Out.data(), (int32_t)N); });
  // The scalar loop through a volatile function pointer, so the compiler cannot
  // vectorize or specialize it: what a lane-by-lane libm call costs.
  LibmFn<T> volatile Call = libmFunction<T>(F);
  double L = timeIt(N, [&] {
    LibmFn<T> C = Call;
    for (long I = 0; I < N; ++I)
      Out[I] = C(X[I], Y[I]);
  });
  std::printf("%-5s %-6s varying %7.2f ns/elt  uniform %7.2f ns/elt  libm scalar %7.2f ns/elt  "
              "(libm / varying %.1fx)\n",
              F.c_str(), IsFloat ? "float" : "double", V, U, L, L / V);
}

} // namespace

int main(int argc, char **argv) {
  long N = 1000000;
  bool Check = false, Special = false, Bench = false;
  uint32_t SweepStride = 0;
  std::vector<std::string> Funcs;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--n" && I + 1 < argc)
      N = std::atol(argv[++I]);
    else if (A == "--lib" && I + 1 < argc) {
      std::string L = argv[++I];
      FloatLib = L == "accurate" ? Lib::Accurate : L == "fast" ? Lib::Fast : Lib::Default;
    }
    else if (A == "--check")
      Check = true;
    else if (A == "--libc" && I + 1 < argc) {
      std::string L = argv[++I];
      for (size_t P = 0, C; P <= L.size(); P = C + 1) {
        C = std::min(L.find(',', P), L.size());
        if (C > P)
          LibcDouble.push_back(L.substr(P, C - P));
      }
    }
    else if (A == "--special")
      Special = true;
    else if (A == "--bench")
      Bench = true;
    else if (A == "--sweep" && I + 1 < argc)
      SweepStride = (uint32_t)std::max(1L, std::atol(argv[++I]));
    else if (std::find(std::begin(kFuncs), std::end(kFuncs), A) != std::end(kFuncs)) {
      if (!kernel(A, true, true) || !kernel(A, false, false)) {
        std::fprintf(stderr, "math_harness: '%s' is not in the linked kernels\n", A.c_str());
        return 2;
      }
      Funcs.push_back(A);
    } else {
      std::fprintf(stderr, "math_harness: unknown argument '%s'\n", A.c_str());
      return 2;
    }
  }
  if (Funcs.empty())
    for (const char *F : kFuncs)
      if (kernel(F, true, true))
        Funcs.push_back(F);
  bool Ok = true;
  for (const std::string &F : Funcs) {
    if (SweepStride) {
      if (!isBinary(F))
        sweep(F, SweepStride);
    } else if (Bench) {
      bench<float>(F, N);
      bench<double>(F, N);
    } else if (Special) {
      Ok = special<float>(F) && Ok;
      Ok = special<double>(F) && Ok;
    } else {
      Ok = measure<float>(F, N, Check) && Ok;
      Ok = measure<double>(F, N, Check) && Ok;
    }
  }
  return Check && !Ok ? 1 : 0;
}

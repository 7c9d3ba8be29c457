// Print.cpp - spmdc_print (ISPC's `print` statement) and spmdc_assert_fail.

#include "spmdc_runtime.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// The text of one print, grown with realloc (the runtime avoids libstdc++'s compiled part).
class Text {
public:
  Text() = default;
  Text(const Text &) = delete;
  Text &operator=(const Text &) = delete;
  ~Text() { std::free(Buffer); }

  void append(const char *Chars, size_t Count) {
    if (Size + Count + 1 > Capacity) {
      size_t NewCapacity = std::max<size_t>(2 * Capacity, Size + Count + 1);
      NewCapacity = std::max<size_t>(NewCapacity, 256);
      auto *Grown = static_cast<char *>(std::realloc(Buffer, NewCapacity));
      if (!Grown) {
        std::fputs("spmdc runtime: fatal error: out of memory in print\n", stderr);
        std::abort();
      }
      Buffer = Grown;
      Capacity = NewCapacity;
    }
    std::memcpy(Buffer + Size, Chars, Count);
    Size += Count;
    Buffer[Size] = '\0';
  }
  Text &operator+=(const char *Chars) {
    append(Chars, std::strlen(Chars));
    return *this;
  }
  Text &operator+=(char C) {
    append(&C, 1);
    return *this;
  }
  const char *data() const { return Buffer ? Buffer : ""; }
  size_t size() const { return Size; }

private:
  char *Buffer = nullptr;
  size_t Size = 0;
  size_t Capacity = 0;
};

// ISPC prints an inactive lane of a varying bool as this instead of ((true))/((false)).
constexpr const char *OffLaneBool = "_________";
constexpr int MaxLanes = 64; // the mask has 64 bits

template <typename T> T loadValue(const void *Values, int Lane) {
  T Value;
  std::memcpy(&Value, static_cast<const char *>(Values) + sizeof(T) * Lane, sizeof(T));
  return Value;
}

void appendFormatted(Text &Out, const char *Format, ...) __attribute__((format(printf, 2, 3)));

void appendFormatted(Text &Out, const char *Format, ...) {
  char Buffer[128];
  va_list Args;
  va_start(Args, Format);
  int Length = std::vsnprintf(Buffer, sizeof(Buffer), Format, Args);
  va_end(Args);
  if (Length > 0)
    Out.append(Buffer, std::min<size_t>(static_cast<size_t>(Length), sizeof(Buffer) - 1));
}

// Appends lane `Lane` of the value(s) at `Values`, whose type letter (either case) is `Type`;
// ISPC's printf conventions: %d %u %lld %llu, %f for float and double, %p, true/false.
// Returns false for an unknown type letter.
bool appendScalar(Text &Out, char Type, const void *Values, int Lane) {
  switch (Type) {
  case 'b':
    Out += loadValue<uint8_t>(Values, Lane) ? "true" : "false";
    return true;
  case 'i':
    appendFormatted(Out, "%d", loadValue<int32_t>(Values, Lane));
    return true;
  case 'u':
    appendFormatted(Out, "%u", loadValue<uint32_t>(Values, Lane));
    return true;
  case 'l':
    appendFormatted(Out, "%lld", static_cast<long long>(loadValue<int64_t>(Values, Lane)));
    return true;
  case 'v':
    appendFormatted(Out, "%llu",
                    static_cast<unsigned long long>(loadValue<uint64_t>(Values, Lane)));
    return true;
  case 'f':
    appendFormatted(Out, "%f", static_cast<double>(loadValue<float>(Values, Lane)));
    return true;
  case 'd':
    appendFormatted(Out, "%f", loadValue<double>(Values, Lane));
    return true;
  case 'p':
    appendFormatted(Out, "%p", loadValue<void *>(Values, Lane));
    return true;
  default:
    return false;
  }
}

bool isKnownType(char Type) { return Type && std::strchr("biulvfdp", Type) != nullptr; }

void appendArgument(Text &Out, char Type, const void *Value, int Width, uint64_t Mask) {
  char Lower = (Type >= 'A' && Type <= 'Z') ? static_cast<char>(Type - 'A' + 'a') : Type;
  if (!isKnownType(Lower) || !Value) {
    Out += "UNSUPPORTED TYPE";
    return;
  }
  if (Lower == Type) {
    appendScalar(Out, Lower, Value, 0);
    return;
  }
  Out += '[';
  for (int Lane = 0; Lane < Width; ++Lane) {
    if (Lane)
      Out += ',';
    if (Mask & (uint64_t(1) << Lane)) {
      appendScalar(Out, Lower, Value, Lane);
    } else if (Lower == 'b') {
      Out += OffLaneBool;
    } else {
      Out += "((";
      appendScalar(Out, Lower, Value, Lane);
      Out += "))";
    }
  }
  Out += ']';
}

// Writes the whole text with stdout's lock held, so concurrent prints (and the host's own
// stdio output) never interleave inside it, then flushes.
void writeAtomically(const Text &Out) {
  flockfile(stdout);
  fwrite_unlocked(Out.data(), 1, Out.size(), stdout);
  fflush_unlocked(stdout);
  funlockfile(stdout);
}

} // namespace

extern "C" void spmdc_print(const char *Format, const char *Types, int32_t Width, uint64_t Mask,
                            void **Args) {
  if (!Format)
    return;
  int Lanes = Width < 0 ? 0 : (Width > MaxLanes ? MaxLanes : Width);
  const char *NextType = Types ? Types : "";
  int NextArg = 0;
  Text Out;
  for (const char *C = Format; *C; ++C) {
    if (*C != '%') {
      Out += *C;
      continue;
    }
    if (!*NextType) {
      // More '%' than arguments: the extra ones print as themselves.
      Out += '%';
      continue;
    }
    appendArgument(Out, *NextType, Args ? Args[NextArg] : nullptr, Lanes, Mask);
    ++NextType;
    ++NextArg;
  }
  writeAtomically(Out);
}

extern "C" void spmdc_assert_fail(const char *File, int32_t Line, const char *Message,
                                  uint64_t FailingLanes) {
  Text Out;
  Out += File ? File : "<unknown>";
  appendFormatted(Out, ":%d: assertion failed: ", Line);
  Out += Message ? Message : "";
  if (FailingLanes) {
    Out += " (lanes ";
    bool First = true;
    for (int Lane = 0; Lane < MaxLanes; ++Lane) {
      if (!(FailingLanes & (uint64_t(1) << Lane)))
        continue;
      if (!First)
        Out += ',';
      First = false;
      appendFormatted(Out, "%d", Lane);
    }
    Out += ')';
  }
  Out += '\n';
  // What the program printed before the failure must not be lost in stdout's buffer.
  std::fflush(stdout);
  std::fwrite(Out.data(), 1, Out.size(), stderr);
  std::fflush(stderr);
  std::abort();
}

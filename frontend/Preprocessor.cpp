// PLACEHOLDER until the real preprocessor lands (helper: preprocessor).
#include "frontend/Preprocessor.h"
namespace spmdc {
std::optional<std::string> preprocess(const std::string &, std::string_view Text,
                                      const PreprocessorOptions &, const TargetInfo &,
                                      DiagnosticEngine &) { return std::string(Text); }
}

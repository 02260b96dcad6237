//===- HFConfig.h - a Hugging Face config.json as model fields -*- C++ -*-===//
//
// `model m = hf_config("config.json")` starts a model from the config file
// of a Hugging Face transformers checkpoint. This maps the keys that fix the
// model's shape (docs/hf-config.md lists them per model_type) to llmsys model
// fields; keys that do not change the shape (dtypes, token ids, dropout,
// rope_theta ...) are ignored. Independent of the resolver: it only reads
// the file and says which fields get which values.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_HFCONFIG_H
#define LLMSYS_SEMA_HFCONFIG_H

#include "Basic/Diagnostics.h"
#include "IR/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace sema {

/// One model field and its value: "hidden", or "moe.experts" in a block.
struct HFField {
  std::string Path;
  spec::Value V;
};

/// The model_type values a config may have, in the order documented.
llvm::ArrayRef<std::string> supportedHFModelTypes();

/// Reads the config.json at FilePath and maps it to model fields. Spelled is
/// the path as the spec wrote it, for messages. Every problem is diagnosed
/// at Call; returns nullopt if there was one.
std::optional<std::vector<HFField>>
importHFConfig(llvm::StringRef FilePath, llvm::StringRef Spelled,
               llvm::SMRange Call, DiagnosticEngine &Diags);

} // namespace sema
} // namespace llmsys

#endif

//===- Suggest.h - "did you mean" for names -------------------------------===//

#ifndef LLMSYS_BASIC_SUGGEST_H
#define LLMSYS_BASIC_SUGGEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace llmsys {

/// The candidate closest to Name by edit distance, if close enough to be a
/// likely typo (at most a third of the name's length, and at least 1);
/// otherwise empty. Ties go to the earliest candidate.
std::string closestMatch(llvm::StringRef Name,
                         llvm::ArrayRef<std::string> Candidates);

/// "; did you mean 'X'?" or "".
std::string didYouMean(llvm::StringRef Name,
                       llvm::ArrayRef<std::string> Candidates);

} // namespace llmsys

#endif

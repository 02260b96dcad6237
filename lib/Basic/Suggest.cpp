//===- Suggest.cpp - "did you mean" for names -----------------------------===//

#include "Basic/Suggest.h"

#include <algorithm>

using namespace llvm;

namespace llmsys {

std::string closestMatch(StringRef Name, ArrayRef<std::string> Candidates) {
  unsigned MaxDist = std::max<unsigned>(1, (Name.size() + 2) / 3);
  unsigned Best = MaxDist + 1;
  std::string BestName;
  for (const std::string &C : Candidates) {
    if (C == Name)
      continue;
    unsigned D = Name.edit_distance(C, /*AllowReplacements=*/true, MaxDist);
    // Case-only differences ("gib" vs "GiB") are the likeliest typo.
    if (Name.equals_insensitive(C))
      D = 0;
    if (D < Best) {
      Best = D;
      BestName = C;
    }
  }
  return Best <= MaxDist ? BestName : std::string();
}

std::string didYouMean(StringRef Name, ArrayRef<std::string> Candidates) {
  std::string M = closestMatch(Name, Candidates);
  return M.empty() ? std::string() : "; did you mean '" + M + "'?";
}

} // namespace llmsys

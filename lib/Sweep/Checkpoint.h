//===- Checkpoint.h - a sweep's saved progress -------------------*- C++ -*-===//
//
// Internal to lib/Sweep: the file Options::Save names. It holds a magic
// word and format, the sweep's identity, its size, the next point to
// evaluate and the merged block of everything before it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SWEEP_CHECKPOINT_H
#define LLMSYS_SWEEP_CHECKPOINT_H

#include "Sweep/Wire.h"

#include <optional>

namespace llmsys {
namespace sweep {

struct Saved {
  uint64_t Next = 0; ///< every point before it is in Done
  Block Done;
};

/// Writes S atomically (a temporary file renamed into place); an error
/// message on failure, empty on success.
std::string saveCheckpoint(const Checkpoint &C, uint64_t Total,
                           const Saved &S);
/// The saved progress; nullopt without a file. Error: why a file that
/// exists cannot be resumed (another sweep, another version, cut short).
std::optional<Saved> loadCheckpoint(const Checkpoint &C, uint64_t Total,
                                    size_t Axes, size_t Columns,
                                    std::string &Error);

} // namespace sweep
} // namespace llmsys

#endif

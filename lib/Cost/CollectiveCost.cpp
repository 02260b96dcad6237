//===- CollectiveCost.cpp - one collective's time ---------------------------===//
//
// The alpha-beta model with ring algorithms (Thakur et al. 2005; the
// bus-bandwidth factors of nccl-tests' PERFORMANCE.md): for a group of n
// devices, a message of S bytes per device, per-direction bandwidth B (the
// fabric's bandwidth times its achieved efficiency) and per-step latency a:
//   all-reduce          2 (n-1)/n S/B + 2 (n-1) a
//   all-gather,
//   reduce-scatter      (n-1)/n S/B + (n-1) a
//   all-to-all          (n-1)/n S/B + (n-1) a
//   send/recv           S/B + a
// All-reduce also has a tree form, 2 log2(n) a + 2 S/B (NCCL's double
// binary tree), which wins for small messages; the faster one is used.
// A group inside a node uses the node's fabric; a group that spans nodes is
// limited by the fabric between nodes (its per-device bandwidth), the
// slowest level it crosses.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <cmath>

namespace llmsys {
namespace cost {

using namespace ir;

const char *commKindName(CommKind K) {
  switch (K) {
  case CommKind::TP: return "tp";
  case CommKind::CP: return "cp";
  case CommKind::PP: return "pp";
  case CommKind::DP: return "dp";
  case CommKind::EP: return "ep";
  }
  llvm_unreachable("unknown comm kind");
}

CommKind commKind(const Op &O) {
  switch (O.Group) {
  case ParallelDim::TP:
  case ParallelDim::SP:
  case ParallelDim::None:
    return CommKind::TP;
  case ParallelDim::CP: return CommKind::CP;
  case ParallelDim::PP: return CommKind::PP;
  case ParallelDim::DP: return CommKind::DP;
  case ParallelDim::EP: return CommKind::EP;
  }
  llvm_unreachable("unknown parallel dimension");
}

CollectiveTime collectiveTime(const Op &O, const SystemConfig &S) {
  CollectiveTime T;
  const NetworkConfig &Net =
      O.FabricLevel == 0 || !S.ScaleOut.present() ? S.ScaleUp : S.ScaleOut;
  double B = Net.Bandwidth * Net.Efficiency;
  double A = Net.Latency;
  double N = static_cast<double>(O.GroupSize);
  double Bytes = O.MessageBytes;
  if (B <= 0 || N < 2)
    return T;
  T.Bandwidth = B;
  switch (O.Collective) {
  case CollectiveKind::AllReduce: {
    double Ring = 2 * (N - 1) / N * Bytes / B + 2 * (N - 1) * A;
    double Tree = 2 * std::ceil(std::log2(N)) * A + 2 * Bytes / B;
    T.Algorithm = Tree < Ring ? "tree" : "ring";
    T.Time = std::min(Ring, Tree);
    break;
  }
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    T.Algorithm = "ring";
    T.Time = (N - 1) / N * Bytes / B + (N - 1) * A;
    break;
  case CollectiveKind::AllToAll:
    T.Algorithm = "pairwise";
    T.Time = (N - 1) / N * Bytes / B + (N - 1) * A;
    break;
  case CollectiveKind::SendRecv:
    T.Algorithm = "p2p";
    T.Time = Bytes / B + A;
    break;
  case CollectiveKind::None:
    break;
  }
  return T;
}

} // namespace cost
} // namespace llmsys

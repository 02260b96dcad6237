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
// A group that spans nodes may also run NCCL's double binary tree between
// the nodes, a chain inside each: 2 ((g-1) a_up + log2(nodes) a) + 2 S/B,
// which wins for small messages; inside a node NCCL's
// tree is a chain of the node's devices, no faster than the ring, so the
// ring it is (NCCL on 8 H100s takes about 20 us at 16 KB, the ring's 14
// steps; docs/cost-model.md gives the sources). A serving engine's
// all-reduce inside a node on a switched fabric may instead run its own
// one-shot kernel (TensorRT-LLM's, vLLM's and SGLang's custom
// all-reduce): each device reads the others' data, 2 a + (n-1) S/B, the
// faster for small messages (the decode step's); training frameworks
// call NCCL. A serving engine's expert all-to-all there, where the fabric
// gives its one-sided kernel's fixed time (alltoall_latency), takes that
// in place of the (n-1) latency steps.
// A serving engine runs its own kernels up to their workspace (8 MB a
// message, 16 MB on two devices: TensorRT-LLM's
// getMaxRequiredWorkspaceSize) and calls NCCL beyond it. NCCL's
// all-reduce inside a node on a switch that reduces (NVLink SHARP; the
// fabric's `reduction`) may send each device's data up once and take the
// sum back by multicast: L + (n+1)/n S/B', B' the bandwidth at the
// block's efficiency and L its latency (2 a unset): NCCL's NVLS
// algorithm, the faster for large messages.
// A group inside a node uses the node's fabric. A group that spans nodes
// with g members per node runs NCCL's multi-ring (or tree) algorithm: each
// ring enters and leaves a node through a different member's network port
// and moves between the members inside the node, so the g ports of the node
// work in parallel and the bus bandwidth is the smaller of the scale-up
// bandwidth and g times the per-device scale-out bandwidth (with g = 1 the
// scale-out bandwidth alone: one member per node, e.g. the data-parallel
// group of a TP-8 mapping on 8-GPU nodes). Of a ring's n - 1 steps, the
// n - nodes inside a node wait the scale-up latency, the nodes - 1 between
// nodes the scale-out's (NCCL's tuner). All-to-all sends the (g-1)/N of
// its data that stays in the node over the scale-up fabric and the rest
// through the device's own port, at the same time.
// A tapered fat tree (`oversubscription` r over leaves of `leaf_nodes` L)
// slows a group whose M nodes span more than one leaf: every ring then
// has an edge through the spine at 1/r of the bandwidth, which paces it;
// an all-to-all sends the (N - L g)/N of its data bound for other leaves
// at 1/r, beside the rest. Send/recv pairs (pipeline neighbours) stay
// under one leaf.
// NCCL moves a collective's data in channels, one CTA each; a channel's
// throughput is bounded by what one SM moves (NCCL's tuner: bus bandwidth
// = channels x a channel's bandwidth). A training mapping may bound a
// group's CTAs (Megatron-LM's per-communicator max_ctas: dp_ctas, cp_ctas,
// pp_ctas): the group's bus bandwidth (a send's bandwidth) is then at most
// that many times the accelerator's `channel_bandwidth`, and a ring
// across nodes, one channel per port, leaves a node through at most that
// many of its g ports. NCCL's NVLS all-reduce runs in channels too (its
// channel count clamped to the bound): the switch's reducing bandwidth is
// bounded alike.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
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
  case CommKind::Host: return "host";
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
  case ParallelDim::DP:
  case ParallelDim::EDP: return CommKind::DP;
  case ParallelDim::EP:
  case ParallelDim::ETP: return CommKind::EP;
  }
  llvm_unreachable("unknown parallel dimension");
}

/// A prefill or decode step's collective (a serving engine's), not a
/// training step's.
static bool servingPhase(Phase P) {
  return P == Phase::Prefill || P == Phase::Decode;
}

/// How much longer an all-to-all over N devices takes on the fabric's
/// shape than on a non-blocking switch: the traffic that crosses the
/// fabric's bisection, N m / 4 for m bytes a device, over the bisection's
/// bandwidth, against m / B (B a device's bandwidth). A ring's bisection is
/// two links of B / 2 each: N / 4. A k-dimensional torus of side s = N^(1/k)
/// has 2 N / s links across, each a device's B / (2 k): s k / 4.
static double bisectionFactor(const NetworkConfig &Net, double N) {
  switch (Net.Topo) {
  case Topology::Ring:
    return std::max(1.0, N / 4);
  case Topology::Torus: {
    double K = double(std::max<int64_t>(1, Net.Dimensions));
    return std::max(1.0, std::pow(N, 1 / K) * K / 4);
  }
  case Topology::Switch:
  case Topology::FatTree:
  case Topology::Mesh:
    return 1;
  }
  return 1;
}

/// The share of a device's bandwidth one link to a single peer carries: a
/// switch's port all of it; a ring's two links half each; a torus's 2 k
/// links 1 / (2 k) each; a full mesh's links to its Peers other devices
/// 1 / Peers each.
static double linkShare(const NetworkConfig &Net, double Peers) {
  switch (Net.Topo) {
  case Topology::Ring:
    return 0.5;
  case Topology::Torus:
    return 1.0 / double(2 * std::max<int64_t>(1, Net.Dimensions));
  case Topology::Mesh:
    return 1.0 / std::max(1.0, Peers);
  case Topology::Switch:
  case Topology::FatTree:
    return 1;
  }
  return 1;
}

CollectiveTime collectiveTime(const Op &O, const SystemConfig &S,
                              int64_t Ctas) {
  CollectiveTime T;
  bool Spans = O.FabricLevel > 0 && S.ScaleOut.present();
  const NetworkConfig &Up = S.ScaleUp;
  const NetworkConfig &Net = Spans ? S.ScaleOut : Up;
  double N = static_cast<double>(O.GroupSize);
  double G = Spans ? std::clamp<double>(double(O.GroupPerNode), 1, N) : N;
  double BOut = Net.Bandwidth * Net.Efficiency;
  double BUp = Up.Bandwidth * Up.Efficiency;
  // The channels a bound on the group's CTAs leaves (0: not bounded).
  const double ChannelBandwidth = S.Device.ChannelBandwidth;
  const double Channels = Ctas > 0 && ChannelBandwidth > 0 ? double(Ctas) : 0;
  // Bus bandwidth: per device inside a node; across nodes the node's g
  // ports in parallel (at most one a channel), capped by the scale-up
  // fabric that feeds them and by the channels' own bandwidth.
  double B = BOut;
  if (Spans && G > 1) {
    double Ports = Channels > 0 ? std::min(G, Channels) : G;
    B = BUp > 0 ? std::min(BUp, Ports * BOut) : Ports * BOut;
  }
  if (Channels > 0)
    B = std::min(B, Channels * ChannelBandwidth);
  double A = Net.Latency;
  double Bytes = O.MessageBytes;
  if (B <= 0 || N < 2)
    return T;
  // A ring's n - 1 steps: across nodes, the steps inside a node wait the
  // scale-up fabric's latency and only the nodes - 1 steps between nodes
  // the scale-out's (NCCL's tuner, src/graph/tuning.cc: nsteps - nInterSteps
  // intra-node and nInterSteps = nNodes - 1 inter-node hops a pass).
  const double Nodes = Spans ? std::ceil(N / G) : 1;
  const double RingSteps =
      Spans ? (N - Nodes) * Up.Latency + (Nodes - 1) * A : (N - 1) * A;
  // The spine of a tapered fat tree, when the group's nodes fill more
  // than one leaf.
  double Taper = 1, BeyondLeaf = 0;
  if (Spans && Net.Topo == Topology::FatTree && Net.Oversubscription > 1 &&
      Net.LeafNodes > 0) {
    if (Nodes > double(Net.LeafNodes)) {
      Taper = Net.Oversubscription;
      BeyondLeaf = std::max(0.0, (N - double(Net.LeafNodes) * G) / N);
    }
  }
  if (O.Collective != CollectiveKind::AllToAll &&
      O.Collective != CollectiveKind::SendRecv)
    B /= Taper;
  T.Bandwidth = B;
  switch (O.Collective) {
  case CollectiveKind::AllReduce: {
    double Ring = 2 * (N - 1) / N * Bytes / B + 2 * RingSteps;
    T.Algorithm = "ring";
    T.Time = Ring;
    T.Latency = 2 * RingSteps;
    T.WireBytes = 2 * (N - 1) / N * Bytes; // the tree's counted alike
    if (Spans) {
      // NCCL's double binary tree runs between nodes, a chain of the
      // node's members inside each (its tuner: 2 ((g - 1) intra-node +
      // log2(nodes) inter-node hops)).
      double Levels = llvm::Log2_64_Ceil(uint64_t(Nodes));
      double TreeSteps = (G - 1) * Up.Latency + Levels * A;
      double Tree = 2 * TreeSteps + 2 * Bytes / B;
      if (Tree < Ring) {
        T.Algorithm = "tree";
        T.Time = Tree;
        T.Latency = 2 * TreeSteps;
      }
    } else if (Net.Topo == Topology::Switch) {
      // A serving engine's own kernels up to their workspace, NCCL's
      // beyond it (and in training).
      const double Workspace = N <= 2 ? 16e6 : 8e6;
      if (servingPhase(O.Ph) && Bytes <= Workspace) {
        // The one-shot kernel: every member reads the n - 1 others'
        // buffers through its port and sums them, in one step.
        double OneShot = 2 * A + (N - 1) * Bytes / B;
        if (OneShot < Ring) {
          T.Algorithm = "one-shot";
          T.Time = OneShot;
          T.Latency = 2 * A;
          T.WireBytes = (N - 1) * Bytes;
        }
      } else if (Net.ReductionEfficiency > 0) {
        double Reducing = Net.Bandwidth * Net.ReductionEfficiency;
        if (Channels > 0)
          Reducing = std::min(Reducing, Channels * ChannelBandwidth);
        double Fixed = Net.ReductionLatency >= 0 ? Net.ReductionLatency
                                                  : 2 * A;
        double Nvls = Fixed + (N + 1) / N * Bytes / Reducing;
        if (Nvls < T.Time) {
          T.Algorithm = "nvls";
          T.Time = Nvls;
          T.Latency = Fixed;
          T.WireBytes = (N + 1) / N * Bytes;
          T.Bandwidth = Reducing;
        }
      }
    }
    break;
  }
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    T.Algorithm = "ring";
    T.Time = (N - 1) / N * Bytes / B + RingSteps;
    T.Latency = RingSteps;
    T.WireBytes = (N - 1) / N * Bytes;
    break;
  case CollectiveKind::AllToAll: {
    T.Algorithm = "pairwise";
    T.WireBytes = (N - 1) / N * Bytes;
    double Wire = (N - 1) / N * Bytes / B;
    if (Spans) {
      // Each device's own port carries what leaves the node.
      double Out = std::max((N - G) / N * Bytes / BOut,
                            BeyondLeaf * Bytes * Taper / BOut);
      double In = G > 1 && BUp > 0 ? (G - 1) / N * Bytes / BUp : 0;
      Wire = std::max(Out, In);
      T.Bandwidth = BOut;
    }
    Wire *= bisectionFactor(Net, N);
    T.Time = Wire + (N - 1) * A;
    T.Latency = (N - 1) * A;
    // A serving engine's one-sided kernel inside a node on a switch writes
    // to every peer at once: a fixed time of its own (alltoall_latency)
    // where the pairwise exchange waits n - 1 steps.
    if (!Spans && servingPhase(O.Ph) && Net.Topo == Topology::Switch &&
        Net.AlltoallLatency > 0) {
      T.Algorithm = "one-sided";
      T.Time = Wire + Net.AlltoallLatency;
      T.Latency = Net.AlltoallLatency;
    }
    break;
  }
  case CollectiveKind::SendRecv:
    // One partner: the device's own link to it (its port when crossing
    // nodes), as much of its bandwidth as the fabric's shape gives one
    // peer.
    T.Bandwidth = BOut * linkShare(Net, Spans ? 1.0 : double(S.DevicesPerNode - 1));
    if (Channels > 0)
      T.Bandwidth = std::min(T.Bandwidth, Channels * ChannelBandwidth);
    T.Algorithm = "p2p";
    T.WireBytes = Bytes;
    T.Time = Bytes / T.Bandwidth + A;
    T.Latency = A;
    break;
  case CollectiveKind::None:
    break;
  }
  return T;
}

} // namespace cost
} // namespace llmsys

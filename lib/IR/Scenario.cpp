//===- Scenario.cpp - typed views of mappings, systems, scenarios ----------===//

#include "IR/Scenario.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include <array>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace ir {

#define LLMSYS_ENUM_WORD(Id, Word) StringLiteral(Word),
#define LLMSYS_WORDS_OF(Type, List)                                            \
  template <> ArrayRef<StringLiteral> enumWords<Type>() {                      \
    static constexpr StringLiteral Words[] = {List(LLMSYS_ENUM_WORD)};         \
    return Words;                                                              \
  }
LLMSYS_WORDS_OF(DType, LLMSYS_DTYPE_WORDS)
LLMSYS_ENUM_TYPES(LLMSYS_WORDS_OF)
#undef LLMSYS_WORDS_OF
#undef LLMSYS_ENUM_WORD

DType dtypeFromWord(StringRef W) { return checkedEnum<DType>(W); }

StringRef dtypeName(DType T) { return enumWord(T); }

DType servingAttentionFormat(const MappingConfig &M) {
  // Integer formats are dequantized before the products.
  auto Float = [&](DType T) {
    return T == DType::INT8 || T == DType::INT4 ? M.Precision : T;
  };
  DType Act = Float(M.Activations), Kv = Float(M.KVCache);
  DType Wide = dtypeBytes(Act) >= dtypeBytes(Kv) ? Act : Kv;
  return dtypeBytes(Wide) < 1 ? DType::FP8 : Wide;
}

StringRef recomputeName(Recompute R) { return enumWord(R); }

StringRef scheduleName(ScheduleKind S) { return enumWord(S); }

using spec::integerOf;
using spec::numberOf;
using spec::wordOf;

/// Where a field was written, else the object's declaration.
static SMRange locOf(const spec::Object &O, const spec::Field *F) {
  return F && F->isWritten() ? F->Loc : O.DeclRange;
}

bool modelHasPart(const ModelConfig &M, QuantizedPart P) {
  switch (P) {
  case QuantizedPart::AttentionIn:
  case QuantizedPart::AttentionOut: return true;
  case QuantizedPart::Mlp: return M.denseLayers() > 0;
  case QuantizedPart::Router:
  case QuantizedPart::Experts: return M.Moe.has_value();
  case QuantizedPart::SharedExperts:
    return M.Moe.has_value() && M.Moe->SharedExperts > 0;
  }
  return false;
}

/// A list of words of enumeration E as a mask of their bits, and the first
/// word listed twice (-1: none).
template <typename E>
static void readWordMask(const spec::Field &List, uint8_t &Mask,
                         int8_t &Twice) {
  Mask = 0;
  for (const spec::Value &W : List.V.elems()) {
    auto Bit = static_cast<unsigned>(checkedEnum<E>(W.str()));
    if ((Mask >> Bit & 1u) && Twice < 0)
      Twice = int8_t(Bit);
    Mask |= uint8_t(1u << Bit);
  }
}

MappingConfig mappingFromSpec(const spec::Object &M) {
  MappingConfig C;
  using MF = MappingField;
  // The fields read for a value and a location, each looked up once.
  const spec::Field *Dp = M.ifSet(MF::Dp), *Tp = M.ifSet(MF::Tp),
                    *Pp = M.ifSet(MF::Pp), *Cp = M.ifSet(MF::Cp),
                    *CpHeads = M.ifSet(MF::CpHeads),
                    *CpGradients = M.ifSet(MF::CpGradients),
                    *CpOverlap = M.ifSet(MF::CpOverlap), *Ep = M.ifSet(MF::Ep),
                    *MicroBatch = M.ifSet(MF::MicroBatch),
                    *GlobalBatch = M.ifSet(MF::GlobalBatch),
                    *Kind = M.ifSet(MF::Schedule, ScheduleField::Kind),
                    *Virtual =
                        M.ifSet(MF::Schedule, ScheduleField::VirtualStages),
                    *Offload = M.ifSet(MF::Offload),
                    *Gradients = M.ifSet(MF::Gradients),
                    *Activations = M.ifSet(MF::Activations),
                    *Recipe = M.ifSet(MF::Recipe),
                    *TpOverlap = M.ifSet(MF::TpOverlap),
                    *TpOverlapBackward = M.ifSet(MF::TpOverlapBackward),
                    *EpOverlap = M.ifSet(MF::EpOverlap),
                    *EpSms = M.ifSet(MF::EpSms),
                    *StageLayers = M.ifSet(MF::StageLayers),
                    *ExpertTp = M.ifSet(MF::ExpertTp),
                    *Sparse = M.ifSet(MF::SparseWeights),
                    *Quantized = M.ifSet(MF::Quantized),
                    *RecomputeModules = M.ifSet(MF::RecomputeModules),
                    *FirstStage = M.ifSet(MF::FirstStageLayers),
                    *LastStage = M.ifSet(MF::LastStageLayers);
  C.Dp = integerOf(Dp, 1);
  C.Tp = integerOf(Tp, 1);
  C.Pp = integerOf(Pp, 1);
  C.Cp = integerOf(Cp, 1);
  C.Ep = integerOf(Ep, 1);
  C.CpQueryHeads =
      checkedEnum<ir::CpHeads>(wordOf(CpHeads)) == ir::CpHeads::Query;
  C.CpHeadsWritten = CpHeads && CpHeads->isWritten();
  if (CpGradients)
    C.CpGradients = dtypeFromWord(wordOf(CpGradients));
  C.CpOverlap = spec::boolOf(CpOverlap, C.CpOverlap);
  C.CpOverlapWritten = CpOverlap && CpOverlap->isWritten();
  // Unset, expert_tp follows tp (also where a sweep sets tp).
  C.ExpertTpWritten = ExpertTp != nullptr;
  C.ExpertTp = integerOf(ExpertTp, C.Tp);
  C.SequenceParallel = spec::boolOf(M.ifSet(MF::Sp), C.SequenceParallel);
  C.Zero = integerOf(M.ifSet(MF::Zero), 0);
  C.DistributedOptimizer =
      spec::boolOf(M.ifSet(MF::DistributedOptimizer), C.DistributedOptimizer);
  C.MicroBatch = integerOf(MicroBatch, 1);
  C.GlobalBatch = integerOf(GlobalBatch, 0);
  C.Schedule = checkedEnum<ScheduleKind>(wordOf(Kind));
  C.VirtualStages = integerOf(Virtual, 1);
  if (StageLayers)
    for (const spec::Value &N : StageLayers->V.elems())
      C.StageLayers.push_back(int64_t(N.Num));
  C.FirstStageLayers = integerOf(FirstStage, -1);
  C.LastStageLayers = integerOf(LastStage, -1);
  const spec::Field *RecomputeField = M.ifSet(MF::Recompute);
  C.Recomp = checkedEnum<Recompute>(wordOf(RecomputeField));
  C.Locs.Recompute = locOf(M, RecomputeField);
  C.Precision = dtypeFromWord(wordOf(M.ifSet(MF::Precision)));
  C.Weights = dtypeFromWord(wordOf(M.ifSet(MF::Weights)));
  C.Activations = dtypeFromWord(wordOf(Activations));
  C.KVCache = dtypeFromWord(wordOf(M.ifSet(MF::KvCache)));
  C.Gradients = dtypeFromWord(wordOf(Gradients));
  const spec::Field *Fusion = M.ifSet(MF::Fusion);
  bool NativeAttention = false;
  if (Fusion)
    for (const spec::Value &W : Fusion->V.elems())
      switch (checkedEnum<FusedKernel>(W.str())) {
      case FusedKernel::FlashAttention:
        NativeAttention = true;
        if (C.Fusion.Attention == AttentionKernel::None)
          C.Fusion.Attention = AttentionKernel::Native;
        break;
      case FusedKernel::FlashAttention2:
        C.Fusion.Attention = AttentionKernel::FlashAttention2;
        break;
      case FusedKernel::BiasGelu:
        C.Fusion.BiasGelu = true;
        break;
      case FusedKernel::BiasDropoutAdd:
        C.Fusion.BiasDropoutAdd = true;
        break;
      case FusedKernel::LayerNorm:
      case FusedKernel::RmsNorm:
        C.Fusion.Norm = true;
        break;
      case FusedKernel::Softmax:
        C.Fusion.Softmax = true;
        break;
      case FusedKernel::SwiGlu:
        C.Fusion.SwiGLU = true;
        break;
      case FusedKernel::Rope:
        C.Fusion.Rope = true;
        break;
      case FusedKernel::GluClamp:
        C.Fusion.GluClamp = true;
        break;
      case FusedKernel::ExpertAct:
        C.Fusion.ExpertAct = true;
        break;
      }
  C.TpOverlap = spec::boolOf(TpOverlap, C.TpOverlap);
  C.CudaGraphs = spec::boolOf(M.ifSet(MF::CudaGraphs), C.CudaGraphs);
  C.StepOverhead = spec::numberOf(M.ifSet(MF::StepOverhead), 0);
  C.SequenceOverhead = spec::numberOf(M.ifSet(MF::SequenceOverhead), 0);
  if (EpOverlap)
    C.EpOverlap = EpOverlap->V.Bool;
  C.EpSms = integerOf(EpSms, 0);
  if (TpOverlapBackward) {
    C.TpOverlapBackward = TpOverlapBackward->V.Bool;
    C.TpOverlapBackwardWritten = TpOverlapBackward->isWritten();
  }
  C.TpGradOverlap = spec::boolOf(M.ifSet(MF::TpGradOverlap), C.TpGradOverlap);
  C.DpOverlap = spec::boolOf(M.ifSet(MF::DpOverlap), C.DpOverlap);
  const spec::Field *DpBucket = M.ifSet(MF::DpBucket);
  C.DpBucket = integerOf(DpBucket, 0);
  C.Locs.DpBucket = locOf(M, DpBucket);
  for (auto [F, Ctas, Loc] :
       {std::make_tuple(MF::DpCtas, &C.DpCtas, &C.Locs.DpCtas),
        std::make_tuple(MF::CpCtas, &C.CpCtas, &C.Locs.CpCtas),
        std::make_tuple(MF::PpCtas, &C.PpCtas, &C.Locs.PpCtas)}) {
    const spec::Field *Written = M.ifSet(F);
    *Ctas = integerOf(Written, 0);
    *Loc = locOf(M, Written);
  }
  const spec::Field *DpOverlapGather = M.ifSet(MF::DpOverlapGather);
  C.DpOverlapGather = spec::boolOf(DpOverlapGather, C.DpOverlapGather);
  C.DpOverlapGatherWritten = DpOverlapGather != nullptr; // (optional)
  C.Locs.DpOverlapGather = locOf(M, DpOverlapGather);
  C.GradAccumulationFusion = spec::boolOf(M.ifSet(MF::GradAccumulationFusion),
                                          C.GradAccumulationFusion);
  const spec::Field *EpDispatch = M.ifSet(MF::EpDispatch);
  C.EpDispatchKind = checkedEnum<ir::EpDispatch>(wordOf(EpDispatch));
  C.ExpertGemmKind =
      checkedEnum<ir::ExpertGemms>(wordOf(M.ifSet(MF::ExpertGemms)));
  C.ExpertBiasKind =
      checkedEnum<ir::ExpertBias>(wordOf(M.ifSet(MF::ExpertBias)));
  C.ExpertRoutingKind =
      checkedEnum<ir::ExpertRouting>(wordOf(M.ifSet(MF::ExpertRouting)));
  C.Locs.EpDispatch = locOf(M, EpDispatch);
  OffloadKind Offloaded = checkedEnum<OffloadKind>(wordOf(Offload));
  C.OffloadWeights = Offloaded == OffloadKind::Weights;
  C.OffloadOptimizer = Offloaded == OffloadKind::Optimizer;
  C.OffloadActivations = Offloaded == OffloadKind::Activations;
  const spec::Field *ScaleBlock = M.ifSet(MF::ScaleBlock);
  C.ScaleBlock = integerOf(ScaleBlock, 0);
  C.Locs.ScaleBlock = locOf(M, ScaleBlock);
  const spec::Field *OffloadLayers = M.ifSet(MF::OffloadLayers);
  C.OffloadLayers = integerOf(OffloadLayers, 0);
  C.Locs.OffloadLayers = locOf(M, OffloadLayers);
  if (Activations)
    C.ActivationsWritten = Activations->isWritten();
  if (const spec::Object *R = spec::objectOf(Recipe)) {
    using RF = RecipeField;
    auto Format = [&](RF F) { return wordOf(R->ifSet(F)); };
    auto Flag = [&](RF F, bool Or) { return spec::boolOf(R->ifSet(F), Or); };
    RecipeConfig Rc;
    Rc.Name = R->Name;
    Rc.Forward = dtypeFromWord(Format(RF::Forward));
    Rc.InputGradient = dtypeFromWord(Format(RF::InputGradient));
    Rc.WeightGradient = dtypeFromWord(Format(RF::WeightGradient));
    StringRef Attention = Format(RF::Attention), Head = Format(RF::Head);
    Rc.Attention = Attention.empty() ? C.Precision : dtypeFromWord(Attention);
    Rc.Head = Head.empty() ? C.Precision : dtypeFromWord(Head);
    Rc.Block = integerOf(R->ifSet(RF::Block), 0);
    Rc.Copies = integerOf(R->ifSet(RF::Copies), 1);
    Rc.AmaxPass = Flag(RF::AmaxPass, false);
    Rc.CastPerCopy = Flag(RF::CastPerCopy, false);
    Rc.WeightCache = Flag(RF::WeightCache, true);
    Rc.SaveNarrow = Flag(RF::SaveNarrow, true);
    Rc.FusedInput = Flag(RF::FusedInput, false);
    Rc.NarrowGather = Flag(RF::NarrowGather, true);
    Rc.RescaleBackward = Flag(RF::RescaleBackward, false);
    Rc.NarrowParams = Flag(RF::NarrowParams, false);
    Rc.CacheTransposes = Flag(RF::CacheTransposes, true);
    Rc.StoreActivation =
        checkedEnum<ir::ActivationStore>(Format(RF::ActivationStore));
    Rc.CastEfficiency = numberOf(R->ifSet(RF::CastEfficiency), 1);
    C.Recipe = std::move(Rc);
  }
  C.Locs.Dp = locOf(M, Dp);
  C.Locs.Tp = locOf(M, Tp);
  C.Locs.Pp = locOf(M, Pp);
  C.Locs.Cp = locOf(M, Cp);
  C.Locs.CpHeads = locOf(M, CpHeads);
  C.Locs.CpGradients = locOf(M, CpGradients);
  C.Locs.CpOverlap = locOf(M, CpOverlap);
  C.Locs.Ep = locOf(M, Ep);
  C.Locs.MicroBatch = locOf(M, MicroBatch);
  C.Locs.GlobalBatch = locOf(M, GlobalBatch);
  C.Locs.Schedule = locOf(M, Kind);
  C.Locs.VirtualStages = locOf(M, Virtual);
  C.Locs.Offload = locOf(M, Offload);
  C.Locs.Gradients = locOf(M, Gradients);
  // Activations default to the precision: point at what chose them.
  C.Locs.Activations = C.ActivationsWritten ? locOf(M, Activations)
                                            : locOf(M, M.ifSet(MF::Precision));
  C.Locs.Recipe = locOf(M, Recipe);
  C.Locs.TpOverlap = locOf(M, TpOverlap);
  C.Locs.TpOverlapBackward = locOf(M, TpOverlapBackward);
  C.Locs.EpOverlap = locOf(M, EpOverlap);
  C.Locs.EpSms = locOf(M, EpSms);
  C.Locs.StageLayers = locOf(M, StageLayers);
  C.Locs.ExpertTp = locOf(M, ExpertTp);
  C.Locs.SparseWeights = locOf(M, Sparse);
  C.SparseWeights = Sparse && Sparse->V.Bool;
  C.Locs.Quantized = locOf(M, Quantized);
  C.QuantizedWritten = Quantized != nullptr;
  if (Quantized)
    readWordMask<QuantizedPart>(*Quantized, C.Quantized, C.QuantizedTwice);
  C.Locs.RecomputeModules = locOf(M, RecomputeModules);
  C.RecomputeModulesWritten = RecomputeModules != nullptr;
  if (RecomputeModules)
    readWordMask<RecomputeModule>(*RecomputeModules, C.RecomputeModules,
                                  C.RecomputeModuleTwice);
  C.Locs.FirstStageLayers = locOf(M, FirstStage);
  C.Locs.LastStageLayers = locOf(M, LastStage);
  C.Locs.Decl = M.DeclRange;
  C.Locs.Fusion = locOf(M, Fusion);
  C.Fusion.TwoAttentionKernels =
      NativeAttention && C.Fusion.Attention == AttentionKernel::FlashAttention2;
  return C;
}

DType widerFormat(const AcceleratorConfig &A, DType T) {
  // A format the device lacks runs at the next wider one of its kind:
  // floating point through the floating formats, integers through the
  // integer ones, both then through the 16-bit and wider formats.
  static const DType Float[] = {DType::FP4,  DType::FP8,  DType::FP16,
                                DType::BF16, DType::TF32, DType::FP32,
                                DType::FP64};
  static const DType Int[] = {DType::INT4, DType::INT8, DType::FP16,
                              DType::BF16, DType::TF32, DType::FP32,
                              DType::FP64};
  bool Integer = T == DType::INT4 || T == DType::INT8;
  bool Started = false;
  for (DType W : Integer ? Int : Float) {
    Started |= W == T;
    if (Started && A.Peak[static_cast<int>(W)] > 0)
      return W;
  }
  return T;
}

AcceleratorConfig acceleratorFromSpec(const spec::Object &A) {
  AcceleratorConfig C;
  C.Name = A.Name;
  // The peaks by format: the peak block has a field per DType, in its
  // order (Schema.def makes them from IR/Enums.def's list).
  static_assert(static_cast<int>(PeakField::FP4) + 1 == NumDTypes &&
                    static_cast<int>(PeakField::BF16) ==
                        static_cast<int>(DType::BF16),
                "a peak field per number format, in DType's order");
  for (int I = 0; I < NumDTypes; ++I)
    C.Peak[I] =
        numberOf(A.ifSet(AcceleratorField::Peak, static_cast<PeakField>(I)), 0);
  using AF = AcceleratorField;
  auto Hbm = [&](MemoryLevelField F) { return A.ifSet(AF::Hbm, F); };
  auto L2 = [&](OnChipField F) { return A.ifSet(AF::L2, F); };
  auto Eff = [&](EfficiencyField F, double Or) {
    return numberOf(A.ifSet(AF::Efficiency, F), Or);
  };
  C.HbmCapacity = numberOf(Hbm(MemoryLevelField::Capacity), 0);
  C.HbmBandwidth = numberOf(Hbm(MemoryLevelField::Bandwidth), 0);
  C.HbmLatency = numberOf(Hbm(MemoryLevelField::Latency), 0);
  C.L2Capacity = numberOf(L2(OnChipField::Capacity), 0);
  C.L2Bandwidth = numberOf(L2(OnChipField::Bandwidth), 0);
  C.L2Latency = numberOf(L2(OnChipField::Latency), 0);
  C.Sparsity = numberOf(A.ifSet(AF::Sparsity), 1);
  if (const spec::Object *T = spec::objectOf(Hbm(MemoryLevelField::Technology)))
    C.HbmEnergyPerByte = numberOf(T->ifSet(MemoryField::EnergyPerBit), 0);
  C.ComputeUnits = integerOf(A.ifSet(AF::ComputeUnits), 0);
  C.Tdp = numberOf(A.ifSet(AF::Tdp), 0);
  if (const spec::Object *Host = spec::objectOf(A.ifSet(AF::HostLink)))
    C.HostLinkBandwidth = numberOf(Host->ifSet(NetworkField::Bandwidth), 0) *
                          numberOf(Host->ifSet(NetworkField::Efficiency), 1);
  C.ChannelBandwidth = numberOf(A.ifSet(AF::ChannelBandwidth), 0);
  C.Price = numberOf(A.ifSet(AF::Price), 0);
  C.StaticPower = numberOf(A.ifSet(AF::StaticPower), 0);
  static_assert(static_cast<int>(FlopEnergyField::FP4) + 1 == NumDTypes,
                "a flop_energy field per number format, in DType's order");
  for (int I = 0; I < NumDTypes; ++I)
    C.FlopEnergy[I] = numberOf(
        A.ifSet(AF::FlopEnergy, static_cast<FlopEnergyField>(I)), 0);
  using EF = EfficiencyField;
  C.ComputeEfficiency = Eff(EF::Compute, 1);
  C.AttentionEfficiency = Eff(EF::Attention, C.ComputeEfficiency);
  C.AttentionBackwardEfficiency =
      Eff(EF::AttentionBackward, C.AttentionEfficiency);
  C.AttentionFa2Efficiency = Eff(EF::AttentionFa2, C.AttentionEfficiency);
  C.AttentionOverhead = Eff(EF::AttentionOverhead, 0);
  C.AttentionOverheadBackward =
      Eff(EF::AttentionOverheadBackward, C.AttentionOverhead);
  C.MemoryEfficiency = Eff(EF::Memory, 1);
  C.ElementwiseEfficiency = Eff(EF::Elementwise, C.MemoryEfficiency);
  C.KvCacheEfficiency = Eff(EF::KvCache, C.MemoryEfficiency);
  C.KvCacheNarrowEfficiency = Eff(EF::KvCacheNarrow, C.KvCacheEfficiency);
  C.ExpertMemoryEfficiency = Eff(EF::ExpertMemory, C.MemoryEfficiency);
  C.ExpertOverhead = Eff(EF::ExpertOverhead, 0);
  C.ExpertFp4Efficiency = Eff(EF::ExpertFp4, 1);
  C.TileM = integerOf(A.ifSet(AF::Efficiency, EF::TileM), 128);
  C.TileN = integerOf(A.ifSet(AF::Efficiency, EF::TileN), 128);
  C.TileK = integerOf(A.ifSet(AF::Efficiency, EF::TileK), 32);
  C.KOverhead = Eff(EF::KOverhead, 0);
  C.SmallTile = Eff(EF::SmallTile, 0);
  C.NarrowEfficiency = Eff(EF::Narrow, 1);
  C.NarrowBlockEfficiency = Eff(EF::NarrowBlock, 1);
  C.ExpertBlockEfficiency = Eff(EF::ExpertBlock, C.NarrowBlockEfficiency);
  C.Fp4Efficiency = Eff(EF::Fp4, C.NarrowEfficiency);
  C.AttentionNarrowEfficiency = Eff(EF::AttentionNarrow, C.NarrowEfficiency);
  C.AttentionNarrowBackwardEfficiency =
      Eff(EF::AttentionNarrowBackward, C.AttentionNarrowEfficiency);
  C.AttentionNarrowWindow = Eff(EF::AttentionNarrowWindow, 0);
  C.Sustained = Eff(EF::Sustained, 1);
  C.KernelOverhead = Eff(EF::KernelOverhead, 0);
  C.LaunchOverhead = Eff(EF::LaunchOverhead, C.KernelOverhead);
  C.ReservedMemory = Eff(EF::ReservedMemory, 0);
  return C;
}

static NetworkConfig networkFromSpec(const spec::Object *N) {
  NetworkConfig C;
  if (!N)
    return C;
  C.Name = N->Name;
  C.Bandwidth = numberOf(N->ifSet(NetworkField::Bandwidth), 0);
  C.Latency = numberOf(N->ifSet(NetworkField::Latency), 0);
  C.Efficiency = numberOf(N->ifSet(NetworkField::Efficiency), 1);
  C.EnergyPerByte = numberOf(N->ifSet(NetworkField::EnergyPerBit), 0);
  C.Topo = enumFromWord<Topology>(wordOf(N->ifSet(NetworkField::Topology)))
               .value_or(Topology::Switch);
  C.Dimensions = integerOf(N->ifSet(NetworkField::Dimensions), 2);
  C.Oversubscription = numberOf(N->ifSet(NetworkField::Oversubscription), 1);
  C.LeafNodes = integerOf(N->ifSet(NetworkField::LeafNodes), 0);
  C.AlltoallLatency = numberOf(N->ifSet(NetworkField::AlltoallLatency), 0);
  C.ReductionEfficiency = numberOf(
      N->ifSet(NetworkField::Reduction, ReductionField::Efficiency), 0);
  C.ReductionLatency = numberOf(
      N->ifSet(NetworkField::Reduction, ReductionField::Latency), -1);
  return C;
}

SystemConfig systemFromSpec(const spec::Object &S) {
  SystemConfig C;
  C.Name = S.Name;
  auto Node = [&](NodeField F) { return S.ifSet(SystemField::Node, F); };
  if (const spec::Object *A = spec::objectOf(Node(NodeField::Accelerator))) {
    C.Accelerator = A->Name;
    C.Device = acceleratorFromSpec(*A);
  }
  C.ScaleUp = networkFromSpec(spec::objectOf(Node(NodeField::Fabric)));
  const spec::Object *ScaleOut = spec::objectOf(S.ifSet(SystemField::Fabric));
  C.ScaleOut = networkFromSpec(ScaleOut);
  C.DevicesPerNode = integerOf(Node(NodeField::Devices), 1);
  C.Nodes = integerOf(S.ifSet(SystemField::Nodes), 1);
  C.HasScaleOut = ScaleOut != nullptr;
  C.HostMemoryBandwidth = numberOf(Node(NodeField::HostMemoryBandwidth), 0);
  C.Pue = numberOf(S.ifSet(SystemField::Pue), 1);
  C.EnergyPrice = numberOf(S.ifSet(SystemField::EnergyPrice), 0);
  C.Lifetime = numberOf(S.ifSet(SystemField::Lifetime), 0);
  C.Rented = checkedEnum<Ownership>(wordOf(S.ifSet(SystemField::Ownership))) ==
             Ownership::Rent;
  C.Rent = numberOf(S.ifSet(SystemField::Rent), 0);
  C.HostPrice = numberOf(S.ifSet(SystemField::HostPrice), 0);
  C.NetworkPrice = numberOf(S.ifSet(SystemField::NetworkPrice), 0);
  C.FacilityPrice = numberOf(S.ifSet(SystemField::FacilityPrice), 0);
  C.FacilityLifetime = numberOf(S.ifSet(SystemField::FacilityLifetime), 0);
  C.Utilization = numberOf(S.ifSet(SystemField::Utilization), 1);
  C.Decl = S.DeclRange;
  return C;
}

double SpeculativeConfig::tokensPerStep() const {
  if (Acceptance >= 1)
    return double(K + 1);
  return (1 - std::pow(Acceptance, double(K + 1))) / (1 - Acceptance);
}

/// The fields train and serve share, by their enumerators in either.
template <typename KindField>
static void readShared(const spec::Object &S, ScenarioConfig &C) {
  if (const spec::Object *M = spec::objectOf(S.ifSet(KindField::Model)))
    C.Model = modelFromSpec(*M);
  if (const spec::Field *F = S.ifSet(KindField::Mapping)) {
    if (const spec::Object *M = spec::objectOf(F))
      C.Mapping = mappingFromSpec(*M);
    C.MappingUse = F->Loc;
  }
  if (const spec::Object *Sys = spec::objectOf(S.ifSet(KindField::System)))
    C.System = systemFromSpec(*Sys);
  if (const spec::Field *F = S.ifSet(KindField::Devices)) {
    C.Devices = integerOf(F, 0);
    C.DevicesLoc = F->Loc;
  }
  C.ChargeIdle = spec::boolOf(S.ifSet(KindField::ChargeIdle), false);
}

static void readTraining(const spec::Object &S, ScenarioConfig &C) {
  using TF = TrainField;
  C.SeqLen = integerOf(S.ifSet(TF::SeqLen), C.Model.MaxSeq);
  C.Tokens = numberOf(S.ifSet(TF::Tokens), 0);
  const spec::Field *Optimizer = S.ifSet(TF::Optimizer);
  C.Optimizer = checkedEnum<OptimizerKind>(wordOf(Optimizer));
  C.OptimizerLoc = locOf(S, Optimizer);
  if (const spec::Field *F = S.ifSet(TF::Finetune)) {
    auto Get = [&](FinetuneField G) { return S.ifSet(TF::Finetune, G); };
    FinetuneConfig &Ft = C.Finetune;
    Ft.Kind = checkedEnum<FinetuneKind>(wordOf(Get(FinetuneField::Kind)));
    Ft.Loc = F->Loc;
    if (const spec::Field *R = Get(FinetuneField::Rank)) {
      Ft.Rank = integerOf(R, 0);
      Ft.RankLoc = R->Loc;
    }
    if (const spec::Field *A = Get(FinetuneField::AllToAll)) {
      Ft.AllToAll = spec::boolOf(A, false);
      Ft.AllToAllLoc = A->Loc;
    }
    if (const spec::Field *T = Get(FinetuneField::Targets)) {
      for (bool &On : Ft.Targets)
        On = false;
      for (const spec::Value &W : T->V.elems())
        Ft.Targets[static_cast<int>(checkedEnum<LoraTarget>(W.str()))] = true;
    }
  }
}

static void readTraffic(const spec::Object &S, ScenarioConfig &C) {
  auto Get = [&](TrafficField F) { return S.ifSet(ServeField::Traffic, F); };
  const spec::Object *Arrival = spec::objectOf(Get(TrafficField::Arrival));
  auto Arrive = [&](ArrivalField F) {
    return Arrival ? Arrival->ifSet(F) : nullptr;
  };
  TrafficConfig &T = C.Traffic;
  T.Enabled = true;
  T.Requests = integerOf(Get(TrafficField::Requests), 0);
  T.Arrival = checkedEnum<ArrivalKind>(wordOf(Arrive(ArrivalField::Kind)));
  if (const spec::Field *F = Get(TrafficField::Trace))
    T.Trace = F->trace();
  if (T.Trace && !T.Trace->empty()) {
    // The scenario's prompt and output are the trace's means.
    double Prompts = 0, Outputs = 0;
    for (const spec::TraceRequest &R : *T.Trace) {
      Prompts += double(R.Prompt);
      Outputs += double(R.Output);
    }
    double N = double(T.Trace->size());
    C.SeqLen = std::max<int64_t>(1, int64_t(std::llround(Prompts / N)));
    C.OutputLen = std::max<int64_t>(1, int64_t(std::llround(Outputs / N)));
    // Unset: one pass over the trace; more than it holds: passes again
    // from its first row, but for its arrival times, which do not repeat
    // (Sema refuses more written beside them; inherited or swept, the
    // trace's rows).
    int64_t Rows = int64_t(T.Trace->size());
    if (T.Requests <= 0 ||
        (T.Arrival == ArrivalKind::Trace && T.Requests > Rows))
      T.Requests = Rows;
  }
  T.Clients = integerOf(Arrive(ArrivalField::Clients), 0);
  T.Rate = numberOf(Arrive(ArrivalField::Rate), 0);
  T.MaxBatch = integerOf(Get(TrafficField::MaxBatch), 256);
  T.MaxTokens = integerOf(Get(TrafficField::MaxTokens), 8192);
  T.ChunkedPrefill = spec::boolOf(Get(TrafficField::ChunkedPrefill), false);
  T.KvFraction = numberOf(Get(TrafficField::KvFraction), 0.9);
  T.PrefixHit = numberOf(Get(TrafficField::PrefixHit), 0);
  T.PrefillFirst = checkedEnum<StepPolicy>(wordOf(Get(TrafficField::Policy))) ==
                   StepPolicy::PrefillFirst;
  T.KvBlock = integerOf(Get(TrafficField::KvBlock), 1);
  T.OnDemand = checkedEnum<KvAdmission>(wordOf(Get(TrafficField::Admission))) ==
               KvAdmission::OnDemand;
  T.Seed = static_cast<uint64_t>(integerOf(Get(TrafficField::Seed), 1));
  T.Lengths =
      checkedEnum<LengthDistribution>(wordOf(Get(TrafficField::Lengths)));
  T.PromptStdev = numberOf(Get(TrafficField::PromptStdev), 0);
  T.OutputStdev = numberOf(Get(TrafficField::OutputStdev), 0);
  T.Use = locOf(S, S.ifSet(ServeField::Traffic));
  T.ArrivalLoc = locOf(S, Get(TrafficField::Arrival));
  T.MaxTokensLoc = locOf(S, Get(TrafficField::MaxTokens));
  auto Written = [](const spec::Field *F) {
    return F && F->isWritten() ? F->Loc : SMRange();
  };
  T.ClientsLoc = Written(Arrive(ArrivalField::Clients));
  T.RateLoc = Written(Arrive(ArrivalField::Rate));
  T.SeedLoc = Written(Get(TrafficField::Seed));
  T.BatchLoc = Written(S.ifSet(ServeField::Batch));
  T.LengthsLoc = Written(Get(TrafficField::Lengths));
  if (const spec::Field *F = Get(TrafficField::Prefill)) {
    if (const spec::Object *M = spec::objectOf(F)) {
      T.Disaggregated = true;
      T.Prefill = mappingFromSpec(*M);
      T.PrefillLoc = F->Loc;
    }
  }
}

static void readServing(const spec::Object &S, ScenarioConfig &C) {
  using SF = ServeField;
  using WF = WorkloadField;
  // The scenario's own values, else its workload's.
  const spec::Object *W = spec::objectOf(S.ifSet(SF::Workload));
  auto Get = [&](SF Own, WF Workload) -> std::optional<double> {
    if (std::optional<double> V = spec::numberOf(S.ifSet(Own)))
      return V;
    return W ? spec::numberOf(W->ifSet(Workload)) : std::nullopt;
  };
  // Retrieval-augmented generation: the retrieved passages join each
  // prompt.
  const spec::Field *Retrieved = S.ifSet(SF::Retrieved);
  C.Retrieved = integerOf(Retrieved, 0);
  if (Retrieved)
    C.RetrievedLoc = Retrieved->Loc;
  C.SeqLen = static_cast<int64_t>(Get(SF::Prompt, WF::Prompt).value_or(0)) +
             C.Retrieved;
  C.OutputLen = static_cast<int64_t>(Get(SF::Output, WF::Output).value_or(0));
  C.Batch = static_cast<int64_t>(Get(SF::Batch, WF::Batch).value_or(1));
  if (const spec::Field *F = S.ifSet(SF::Beams)) {
    C.Beams = integerOf(F, 1);
    C.BeamsLoc = F->Loc;
  }
  // SLOs: the scenario's block if it has one, else the workload's.
  const spec::Object *Slo = spec::objectOf(S.ifSet(SF::Slo));
  if (!Slo && W)
    Slo = spec::objectOf(W->ifSet(WF::Slo));
  if (Slo) {
    C.SloTtft = numberOf(Slo->ifSet(SloField::Ttft), 0);
    C.SloTpot = numberOf(Slo->ifSet(SloField::Tpot), 0);
    C.SloE2E = numberOf(Slo->ifSet(SloField::E2e), 0);
    C.SloThroughput = numberOf(Slo->ifSet(SloField::Throughput), 0);
  }
  if (spec::objectOf(S.ifSet(SF::Traffic)))
    readTraffic(S, C);
  if (const spec::Field *Draft =
          S.ifSet(SF::Speculative, SpeculativeField::Draft);
      spec::objectOf(Draft)) {
    auto Get = [&](SpeculativeField F) { return S.ifSet(SF::Speculative, F); };
    C.Speculative.Enabled = true;
    C.Speculative.Draft = modelFromSpec(*spec::objectOf(Draft));
    C.Speculative.K = integerOf(Get(SpeculativeField::K), 1);
    C.Speculative.Acceptance = numberOf(Get(SpeculativeField::Acceptance), 0);
    C.Speculative.DraftUse = locOf(S, Draft);
  }
}

ScenarioConfig scenarioFromSpec(const spec::Object &S) {
  ScenarioConfig C;
  C.Name = S.Name;
  C.Training = S.Type == &Schema::get().of(StructID::Train);
  C.Decl = S.DeclRange;
  if (C.Training) {
    readShared<TrainField>(S, C);
    readTraining(S, C);
  } else {
    readShared<ServeField>(S, C);
    readServing(S, C);
  }
  return C;
}

bool pipelinesRequests(const ScenarioConfig &S) {
  return !S.Training && S.Mapping.Pp > 1 && !S.Speculative.Enabled &&
         !S.Mapping.OffloadWeights;
}

int64_t servingMicroBatchSize(const ScenarioConfig &S, int64_t Batch) {
  if (!pipelinesRequests(S) || Batch <= 1)
    return Batch;
  return (Batch + S.Mapping.Pp - 1) / S.Mapping.Pp;
}

int64_t servingMicroBatches(const ScenarioConfig &S, int64_t Batch) {
  if (!pipelinesRequests(S) || Batch <= 1)
    return 1;
  int64_t Size = servingMicroBatchSize(S, Batch);
  return (Batch + Size - 1) / Size;
}

} // namespace ir
} // namespace llmsys

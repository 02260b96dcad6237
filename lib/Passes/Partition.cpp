//===- Partition.cpp - the mapping's parallelism, per device -------------------===//
//
// Splits the program over the mapping's parallel dimensions and inserts the
// communication each split needs (Megatron-LM's layout: TP innermost, then
// CP, then DP (with EP inside it), PP outermost):
//   TP  heads and MLP features split (column- then row-parallel GEMMs,
//       Shoeybi et al. 2019); per layer two all-reduces forward and two
//       backward, or with SP a reduce-scatter and an all-gather for each
//       (Korthikanti et al. 2022 §4.2.2), sequence-region work split too
//   CP  tokens split; ring attention passes K and V around the group
//   EP  experts split; all-to-all dispatch and combine
//   PP  layers to stages (embedding on the first, head on the last);
//       send/recv of activations between stages
//   DP  gradient all-reduce, or with ZeRO / the distributed optimizer a
//       reduce-scatter of gradients and an all-gather of parameters; ZeRO-3
//       gathers each layer's parameters in forward and backward
// A mapping that cannot be laid out is diagnosed at the mapping field.
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace llmsys {
namespace passes {

using namespace ir;

namespace {

/// The kinds splitOps may put a TP collective before or after (the rules
/// in its loop name each of them; a rule about another kind adds it here).
bool tpNeighbour(OpKind K) {
  switch (K) {
  case OpKind::AttnQkv:
  case OpKind::AttnQDown:
  case OpKind::AttnQ:
  case OpKind::AttnOut:
  case OpKind::MlpUp:
  case OpKind::MlpDown:
  case OpKind::MoeRouter:
  case OpKind::MoeCombine:
  case OpKind::MoeExpertDown:
  case OpKind::MoeSharedUp:
  case OpKind::MoeSharedDown:
  case OpKind::EmbedLookup:
  case OpKind::LmHead:
    return true;
  default:
    return false;
  }
}

bool isForwardLike(Phase P) {
  return P == Phase::Forward || P == Phase::Recompute || P == Phase::Prefill ||
         P == Phase::Decode;
}

class Partitioner {
public:
  Partitioner(Program &P, PassContext &Ctx) : Partitioner(P, P.Scenario, Ctx) {}
  /// The layout's checks of a scenario not (yet) in a program: validate
  /// reads S only, never P.
  Partitioner(Program &P, const ScenarioConfig &S, PassContext &Ctx)
      : P(P), S(S), M(S.Model), Map(S.Mapping), Sys(S.System), Ctx(Ctx) {}

  /// Source: the blocks' operators as the passes before partition left
  /// them, in the order of P's blocks (which then hold only their kinds,
  /// repeats and parameters); null: P's own.
  /// Validated: the layout's checks already passed (layoutAccepted).
  bool run(const std::vector<Block> *Source = nullptr, bool Validated = false) {
    if (!Validated && !validate())
      return false;
    if (Validated && !layoutChunks())
      return false;
    splitParams();
    splitOps(Source);
    insertContextParallel();
    insertExpertParallel();
    assignStages();
    insertDataParallel();
    return true;
  }

  ~Partitioner() { Ctx.Lists.recycle(std::move(Scratch)); }

  /// The checks of the layout alone (they read the scenario, not the
  /// operators).
  bool validateOnly() { return validate(); }

private:
  template <DiagID ID, typename... Args>
  void error(llvm::SMRange R, Args &&...A) {
    Ok = false;
    if (Ctx.Diags) {
      auto D = Ctx.Diags->report<ID>(R, std::forward<Args>(A)...);
      if (S.mappingUseElsewhere(R))
        D.template note<DiagID::note_scenario_uses>(S.MappingUse, S.Name);
    }
  }

  void divisible(int64_t Value, const char *What, int64_t By, const char *ByName,
                 llvm::SMRange R) {
    if (By > 0 && Value % By != 0)
      error<DiagID::err_mapping_divisible>(R,  What, Value, ByName, By);
  }

  /// recompute_modules: with selective recomputation only, each module
  /// once, and each one a part of the model that recomputing changes
  /// (passes/Recompute.cpp).
  void recomputeModules() {
    llvm::SMRange R = Map.Locs.RecomputeModules;
    const ModelConfig &Mod = S.Model;
    if (Map.Recomp != Recompute::Selective) {
      error<DiagID::err_recompute_modules>(
          R, "chooses what recompute = selective recomputes; recompute is '" +
                 enumWord(Map.Recomp).str() + "'");
      return;
    }
    if (Map.RecomputeModuleTwice >= 0) {
      error<DiagID::err_recompute_modules>(
          R, "lists '" +
                 enumWord(RecomputeModule(Map.RecomputeModuleTwice)).str() +
                 "' twice");
      return;
    }
    if (Map.RecomputeModules == 0) {
      error<DiagID::err_recompute_modules>(
          R, "lists no module; to recompute nothing, write recompute = none");
      return;
    }
    bool Moe = Mod.Moe.has_value() && Mod.moeLayers() > 0;
    for (unsigned I = 0; I < NumRecomputeModules; ++I) {
      auto Module = RecomputeModule(I);
      if (!Map.recomputes(Module))
        continue;
      std::string Word = enumWord(Module).str(), Why;
      switch (Module) {
      case RecomputeModule::CoreAttn:
        break;
      case RecomputeModule::Layernorm:
        if (!Mod.Mla && !(Moe && !Mod.SharedNorm))
          Why = "model '" + Mod.Name +
                "' has no norm that is a module of its own (its norms are "
                "fused into the next linear layer; only a MoE layer's "
                "pre-MLP norm and MLA's input norm are not)";
        break;
      case RecomputeModule::MlaUpProj:
        if (!Mod.Mla)
          Why = "model '" + Mod.Name + "' has no multi-latent attention";
        break;
      case RecomputeModule::MoeAct:
      case RecomputeModule::Moe:
        if (!Moe)
          Why = "model '" + Mod.Name + "' has no MoE layer";
        else if (Module == RecomputeModule::MoeAct &&
                 Map.recomputes(RecomputeModule::Moe))
          Why = "'moe' recomputes the whole MoE layer";
        break;
      case RecomputeModule::SharedExperts:
        if (!Moe || Mod.Moe->SharedExperts == 0)
          Why = "model '" + Mod.Name + "' has no shared experts";
        else if (Map.recomputes(RecomputeModule::Moe))
          Why = "'moe' recomputes the whole MoE layer";
        break;
      case RecomputeModule::Mlp:
        if (Mod.denseLayers() == 0)
          Why = "model '" + Mod.Name + "' has no dense layer";
        break;
      }
      if (!Why.empty()) {
        error<DiagID::err_recompute_modules>(R, "lists '" + Word +
                                                    "', which changes "
                                                    "nothing: " + Why);
        return;
      }
    }
    // What Megatron-LM refuses: the MoE layer recomputed beside the
    // overlapped expert all-to-alls, and the discarded outputs of norms
    // and expert activations under delayed scaling (per-tensor scales
    // from the amax history: a recipe without a block or an amax pass).
    if (Map.recomputes(RecomputeModule::Moe) && Map.EpOverlap) {
      error<DiagID::err_recompute_modules>(
          R, "lists 'moe', which Megatron-LM refuses with ep_overlap "
             "(overlap_moe_expert_parallel_comm)");
      return;
    }
    const std::optional<RecipeConfig> &Rc = Map.Recipe;
    bool Delayed = Rc && Rc->Block == 0 && !Rc->AmaxPass;
    for (RecomputeModule Discarded :
         {RecomputeModule::Layernorm, RecomputeModule::MoeAct})
      if (Delayed && Map.recomputes(Discarded)) {
        error<DiagID::err_recompute_modules>(
            R, "lists '" + enumWord(Discarded).str() +
                   "', which Megatron-LM refuses with delayed scaling "
                   "(recipe '" + Rc->Name +
                   "' takes per-tensor scales from the amax history)");
        return;
      }
  }

  bool validate() {
    const MappingLocs &L = Map.Locs;
    // Groups and device counts are 32-bit in the operators. Each size is
    // at most MaxCount (Sema); their products are checked here.
    constexpr int64_t Most = std::numeric_limits<int32_t>::max();
    // The tokens of a micro-batch (a serving batch's prompts and outputs)
    // multiply the model's sizes in the operators' 64-bit shapes.
    double Tokens = S.Training ? double(Map.MicroBatch) * double(S.SeqLen)
                               : double(S.Batch) *
                                     (double(S.SeqLen) + double(S.OutputLen));
    if (Ok && Tokens > double(Most))
      error<DiagID::err_workload_too_large>(
          S.Decl,
          S.Training ? "micro_batch x seq_len" : "batch x (prompt + output)",
          fmt::format("{:.0f}", Tokens), Most);
    double Spans = double(Map.Dp) * double(Map.Tp) * double(Map.Pp) *
                   double(Map.Cp);
    if (Spans > double(Most))
      error<DiagID::err_mapping_too_large>(L.Decl, 
            fmt::format("{:.0f}", Spans), Most);
    if (!Ok)
      return false;
    // A device with no peak for the activations' format (nor a wider one)
    // would be costed as infinitely fast.
    if (S.System.Device.peak(Map.Activations) <= 0)
      error<DiagID::err_no_peak>(S.System.Decl.Start.isValid() ? S.System.Decl : L.Decl,  S.System.Device.Name,
            dtypeName(Map.Activations).str());
    // Nor for a serving engine's attention products (docs/cost-model.md,
    // "Number formats").
    else if (DType Attn = servingAttentionFormat(Map);
             !S.Training && S.System.Device.peak(Attn) <= 0)
      error<DiagID::err_no_peak>(
          S.System.Decl.Start.isValid() ? S.System.Decl : L.Decl,
          S.System.Device.Name,
          dtypeName(Attn).str() +
              ", the attention's format (the wider of activations and "
              "kv_cache)");
    // Host-memory offload: serving weights, training activations.
    if ((Map.OffloadOptimizer && !S.Training) ||
        (Map.OffloadWeights && S.Training))
      error<DiagID::err_offload_unsupported>(L.Offload, 
            Map.OffloadWeights ? "weights" : "optimizer",
            S.Training ? "train" : "serve",
            S.Training ? "training offload of the weights (ZeRO-Infinity) "
                         "is not costed yet"
                       : "a serve scenario has no optimizer state");
    else if (Map.OffloadOptimizer && S.System.Device.HostLinkBandwidth <= 0)
      error<DiagID::err_offload_no_host_link>(L.Offload, "optimizer",
                                              "moves gradients and parameters",
                                              S.System.Device.Name);
    else if (Map.OffloadOptimizer && S.System.HostMemoryBandwidth <= 0)
      error<DiagID::err_offload_no_host_memory>(L.Offload, S.System.Name);
    else if (Map.OffloadActivations && !S.Training)
      error<DiagID::err_offload_unsupported>(L.Offload, "activations",
                                              "serve",
                                              "serving keeps no activations "
                                              "for a backward pass");
    else if ((Map.OffloadWeights || Map.OffloadActivations) &&
             S.System.Device.HostLinkBandwidth <= 0)
      error<DiagID::err_offload_no_host_link>(
          L.Offload, Map.OffloadWeights ? "weights" : "activations",
          Map.OffloadWeights ? "streams the weights" : "moves the activations",
          S.System.Device.Name);
    if (Sys.ScaleUp.Oversubscription > 1)
      error<DiagID::err_network_taper_inside>(
          S.System.Decl.Start.isValid() ? S.System.Decl : L.Decl,
          Sys.ScaleUp.Name, Sys.Name);
    // What a network says of collectives inside a node, on the fabric
    // between nodes.
    const NetworkConfig &Out = Sys.ScaleOut;
    const bool Reduces = Out.ReductionEfficiency > 0;
    if (Out.present() && (Reduces || Out.AlltoallLatency > 0))
      error<DiagID::err_network_node_only>(
          S.System.Decl.Start.isValid() ? S.System.Decl : L.Decl,
          Reduces ? "reduction" : "alltoall_latency", Out.Name,
          Reduces ? "NCCL's all-reduce in a switch that reduces"
                  : "a serving engine's one-sided all-to-all",
          Sys.Name);
    if (Map.EpDispatchKind != EpDispatch::AllToAll && Map.Ep < 2)
      error<DiagID::err_ep_dispatch>(Map.Locs.EpDispatch,
                                     enumWord(Map.EpDispatchKind));
    if (Map.EpOverlap && (!S.Training || Map.Ep < 2))
      error<DiagID::err_ep_overlap>(L.EpOverlap, 
            S.Training ? "it needs expert parallelism (ep > 1)"
                       : "it is costed for training only");
    if (Map.EpSms > 0) {
      const AcceleratorConfig &Dev = S.System.Device;
      if (!S.Training)
        error<DiagID::err_ep_sms>(L.EpSms, "it is costed for training only");
      else if (!Map.EpOverlap)
        error<DiagID::err_ep_sms>(
            L.EpSms,
            "nothing runs beside the all-to-alls without ep_overlap = true");
      else if (Dev.ComputeUnits == 0)
        error<DiagID::err_ep_sms>(
            L.EpSms, "accelerator '" + Dev.Name +
                                "' gives no compute_units to take them from");
      else if (Map.EpSms >= Dev.ComputeUnits)
        error<DiagID::err_ep_sms>(
            L.EpSms, "accelerator '" + Dev.Name + "' has " +
                                std::to_string(Dev.ComputeUnits) +
                                " compute_units, and ep_sms must leave some");
    }
    // (A serve mapping's dp_bucket is Sema's err_mapping_training_only.)
    if (Map.DpBucket > 0) {
      if (!Map.DpOverlap)
        error<DiagID::err_dp_bucket>(
            L.DpBucket, "without dp_overlap = true every reduction waits "
                        "for the whole backward (Megatron-LM sets no "
                        "buckets then)");
      else if (Map.Zero == 3)
        error<DiagID::err_dp_bucket>(
            L.DpBucket, "with zero = 3 each layer gathers and scatters its "
                        "own parameters (FSDP's units), not in buckets");
      else if (Map.Dp * Map.Cp < 2)
        error<DiagID::err_dp_bucket>(
            L.DpBucket, "with dp x cp = 1 no gradient is reduced");
    }
    if (Map.DpOverlapGatherWritten) {
      if (!Map.DpOverlap)
        error<DiagID::err_dp_overlap_gather>(
            L.DpOverlapGather, "without dp_overlap = true no data-parallel "
                               "collective is overlapped");
      else if (Map.Zero == 3 || (Map.Zero == 0 && !Map.DistributedOptimizer))
        error<DiagID::err_dp_overlap_gather>(
            L.DpOverlapGather,
            Map.Zero == 3 ? "with zero = 3 each layer gathers its own "
                            "parameters before its forward and backward"
                          : "without a sharded optimizer (distributed_"
                            "optimizer, or zero 1 or 2) each rank keeps "
                            "its parameters and none is gathered");
      else if (Map.Dp * Map.Cp < 2)
        error<DiagID::err_dp_overlap_gather>(
            L.DpOverlapGather, "with dp x cp = 1 nothing is gathered");
    }
    if (Map.OffloadLayers > 0) {
      if (!Map.OffloadActivations)
        error<DiagID::err_offload_layers>(
            L.OffloadLayers, "without offload = activations no layer sends "
                             "them");
      else if (Map.OffloadLayers >= S.Model.Layers)
        error<DiagID::err_offload_layers>(
            L.OffloadLayers,
            fmt::format("it must be fewer than the {} layers of model '{}' "
                        "(the last layer's are read as soon as the "
                        "backward starts: Megatron-LM refuses cpu_"
                        "offloading_num_layers >= num_layers); unset, "
                        "every layer offloads",
                        S.Model.Layers, S.Model.Name));
    }
    // (A serve mapping's bounds are Sema's err_mapping_training_only.)
    struct CtaBound {
      int64_t Ctas;
      llvm::SMRange Loc;
      const char *Name, *Idle;
      int64_t Size;
    };
    for (const CtaBound &C :
         {CtaBound{Map.DpCtas, L.DpCtas, "dp_ctas",
                   "with dp x cp = 1 no data-parallel collective runs",
                   Map.Dp * Map.Cp},
          CtaBound{Map.CpCtas, L.CpCtas, "cp_ctas",
                   "with cp = 1 no context-parallel exchange runs", Map.Cp},
          CtaBound{Map.PpCtas, L.PpCtas, "pp_ctas",
                   "with pp = 1 no activations pass between stages",
                   Map.Pp}}) {
      if (C.Ctas <= 0)
        continue;
      if (C.Size < 2)
        error<DiagID::err_mapping_ctas>(C.Loc, C.Name, C.Idle);
      else if (Sys.Device.ChannelBandwidth <= 0)
        error<DiagID::err_mapping_ctas>(
            C.Loc, C.Name,
            fmt::format("accelerator '{}' gives no channel_bandwidth (what "
                        "one CTA moves) to bound them by",
                        Sys.Device.Name));
    }
    if (Map.TpOverlap && Map.Tp < 2)
      error<DiagID::err_tp_overlap>(L.TpOverlap);
    if (Map.TpOverlapBackwardWritten && !Map.TpOverlap)
      error<DiagID::err_tp_overlap_backward>(L.TpOverlapBackward);
    // (Serving refuses cp_gradients and cp_overlap in Sema: no backward,
    // and a prefill's exchange is on its critical path.)
    const char *NoCp = "it needs context parallelism (cp > 1)";
    if (Map.Cp < 2) {
      if (Map.CpHeadsWritten)
        error<DiagID::err_cp_exchange>(L.CpHeads, "cp_heads", NoCp);
      if (Map.CpGradients)
        error<DiagID::err_cp_exchange>(L.CpGradients, "cp_gradients", NoCp);
      if (Map.CpOverlapWritten)
        error<DiagID::err_cp_exchange>(L.CpOverlap, "cp_overlap", NoCp);
    } else if (Map.CpQueryHeads && M.Mla) {
      error<DiagID::err_cp_exchange>(
          L.CpHeads, "cp_heads = query",
          "model '" + M.Name +
              "' uses latent attention, whose exchange llmsys costs as "
              "the compressed latent, not as K/V heads");
    }
    if (Map.SparseWeights && S.Training)
      error<DiagID::err_sparse_training>(L.SparseWeights);
    if (S.Training && S.muon()) {
      if (S.Finetune.adapters())
        error<DiagID::err_muon>(S.OptimizerLoc,
                                "is costed for pre-training: fine-tuning's "
                                "adapters beside frozen weights are not");
      else if (Map.OffloadOptimizer)
        error<DiagID::err_muon>(S.OptimizerLoc,
                                "orthogonalizes on the device: offload = "
                                "optimizer would run the update on the host");
      else if (Map.Zero >= 2)
        error<DiagID::err_muon>(S.OptimizerLoc,
                                "keeps every rank's gradients whole "
                                "(Megatron-LM's layer-wise optimizer): zero = " +
                                    std::to_string(Map.Zero) +
                                    " shards them");
      else if (Map.Precision == DType::FP16)
        error<DiagID::err_muon>(S.OptimizerLoc,
                                "is costed with bf16, as Megatron-LM runs it "
                                "(it refuses fp16)");
    }
    if (Map.RecomputeModulesWritten)
      recomputeModules();
    if (Map.Recomp == Recompute::Dots && S.Model.Moe.has_value() &&
        S.Model.moeLayers() > 0)
      error<DiagID::err_recompute_dots_moe>(Map.Locs.Recompute, S.Model.Name);
    if (Map.QuantizedWritten) {
      const ModelConfig &Mod = S.Model;
      std::string Missing;
      for (unsigned I = 0; I < NumQuantizedParts && Missing.empty(); ++I)
        if (Map.quantizes(QuantizedPart(I)) &&
            !modelHasPart(Mod, QuantizedPart(I)))
          Missing = enumWord(QuantizedPart(I)).str();
      if (S.Training)
        error<DiagID::err_quantized>(
            L.Quantized, "it is modelled for serving (a training run's GEMMs "
                         "take its recipe's formats, or activations)");
      else if (Map.QuantizedTwice >= 0)
        error<DiagID::err_quantized>(
            L.Quantized, "it lists '" +
                             enumWord(QuantizedPart(Map.QuantizedTwice)).str() +
                             "' twice");
      else if (Map.Quantized == 0)
        error<DiagID::err_quantized>(
            L.Quantized, "it lists none (leave weights and activations at "
                         "the precision instead)");
      else if (!Missing.empty())
        error<DiagID::err_quantized>(L.Quantized, "model '" + Mod.Name +
                                                      "' has no " + Missing);
      else if (Map.Weights == Map.Precision &&
               Map.Activations == Map.Precision)
        error<DiagID::err_quantized>(
            L.Quantized, "with weights and activations at the precision (" +
                             dtypeName(Map.Precision).str() +
                             ") it changes nothing");
    }
    if (Map.ScaleBlock > 0) {
      if (S.Training)
        error<DiagID::err_scale_block>(
            L.ScaleBlock, "it is modelled for serving (a training run's "
                          "GEMMs take their recipe's block)");
      else if (dtypeBytes(Map.Activations) != 1)
        error<DiagID::err_scale_block>(
            L.ScaleBlock, "the activations are " +
                              dtypeName(Map.Activations).str() +
                              ": no GEMM runs at the 8-bit rate");
    }
    if (Map.Fusion.TwoAttentionKernels)
      error<DiagID::err_fusion_attention_kernels>(L.Fusion);
    if (Map.Fusion.GluClamp && !Map.Fusion.SwiGLU)
      error<DiagID::err_fusion_glu_clamp>(L.Fusion);
    if (Map.Fusion.ExpertAct) {
      const char *Why =
          S.Training ? "a training framework runs the experts' activation as "
                       "a kernel of its own: it would change nothing"
          : !M.routed()
              ? "the model has no routed experts: it would change nothing"
          : !Map.Fusion.activationFused(M.GatedMlp)
              ? (M.GatedMlp ? "it needs swiglu, the fused activation it folds"
                            : "it needs bias_gelu, the fused activation it "
                              "folds")
              : nullptr;
      if (Why)
        error<DiagID::err_fusion_expert_act>(L.Fusion, Why);
    }
    if (Map.Recipe && !S.Training)
      error<DiagID::err_recipe_serving>(L.Recipe,  Map.Recipe->Name);
    else if (Map.Recipe && Map.ActivationsWritten)
      error<DiagID::err_recipe_activations>(L.Activations,  Map.Recipe->Name);
    else if (Map.Recipe) {
      const RecipeConfig &R = *Map.Recipe;
      double Wide = dtypeBytes(Map.Precision);
      bool Any = false;
      for (DType T : {R.Forward, R.InputGradient, R.WeightGradient, R.Head,
                      R.Attention})
        Any |= R.copyBytes(T) < Wide;
      if (!Any)
        error<DiagID::err_recipe_nothing>(L.Recipe,  R.Name,
              dtypeName(Map.Precision).str());
      else if (R.NarrowParams && !R.WeightCache)
        error<DiagID::err_recipe_narrow_params>(L.Recipe, R.Name);
      else if (!R.CacheTransposes && (!R.NarrowParams || R.Copies < 2))
        error<DiagID::err_recipe_cache_transposes>(
            L.Recipe, R.Name,
            "which only weights kept quantized (narrow_params) in two copies "
            "(copies = 2) have");
      else if (!R.CacheTransposes &&
               !(R.copyBytes(R.Forward) < Wide &&
                 R.copyBytes(R.InputGradient) < Wide))
        // (The second copy is the one the input-gradient GEMM reads.)
        error<DiagID::err_recipe_cache_transposes>(
            L.Recipe, R.Name,
            "but no second copy is kept: the forward GEMMs read the weights "
            "in " + dtypeName(R.Forward).str() + " and the input-gradient "
            "GEMMs in " + dtypeName(R.InputGradient).str());
      else if (R.StoreActivation != ActivationStore::Wide) {
        // (Megatron-Core's MLP and TEGroupedMLP pass the flag only to the
        // fused bias-SwiGLU, bias_activation_fusion; its recomputation
        // keeps inputs, not operators' outputs.)
        const char *Why =
            !M.SwiGlu              ? "the model's activation is not swiglu"
            : !Map.Fusion.SwiGLU   ? "the mapping's fusion does not list swiglu"
            : Map.keepsOutputs()   ? "recompute = ops and dots keep operators' "
                                     "outputs, which Megatron-Core does not"
                                   : nullptr;
        if (Why)
          error<DiagID::err_recipe_activation_store>(
              L.Recipe, R.Name, enumWord(R.StoreActivation).str(), Why);
      }
    }
    if (S.Training &&
        (Map.Gradients == DType::INT8 || Map.Gradients == DType::INT4))
      error<DiagID::err_gradients_format>(L.Gradients, 
            dtypeName(Map.Gradients).str());
    divisible(M.Heads, "heads", Map.Tp, "tp", L.Tp);
    if (!M.Mla && M.KvHeads % Map.Tp != 0 && Map.Tp % M.KvHeads != 0)
      error<DiagID::err_mapping_divisible>(L.Tp,  "kv_heads", M.KvHeads, "tp",
            Map.Tp);
    divisible(M.Ffn, "ffn", Map.Tp, "tp", L.Tp);
    if (M.Moe) {
      divisible(M.Moe->ExpertFfn, "expert_ffn", Map.ExpertTp,
                Map.ExpertTpWritten ? "expert_tp" : "tp",
                Map.ExpertTpWritten ? L.ExpertTp : L.Tp);
      divisible(M.Moe->Experts, "experts", Map.Ep, "ep", L.Ep);
      // MoE parallel folding: the experts' ep x expert_tp grid tiles each
      // stage's tp x cp x dp devices (without folding, ep divides dp).
      int64_t StageDevices = Map.Tp * Map.Cp * Map.Dp;
      if (StageDevices % (Map.Ep * Map.ExpertTp) != 0)
        error<DiagID::err_mapping_divisible>(
            Map.ExpertTpWritten && Map.Ep == 1 ? L.ExpertTp : L.Ep,
            "tp * cp * dp", StageDevices, "ep * expert_tp",
            Map.Ep * Map.ExpertTp);
    } else if (Map.Ep > 1) {
      error<DiagID::err_mapping_no_experts>(L.Ep, "ep", Map.Ep, M.Name);
    } else if (Map.ExpertTpWritten) {
      error<DiagID::err_mapping_no_experts>(L.ExpertTp, "expert_tp",
                                            Map.ExpertTp, M.Name);
    }
    layoutChunks();
    divisible(S.SeqLen, S.Training ? "seq_len" : "prompt", Map.Cp, "cp", L.Cp);
    if (Map.SequenceParallel)
      divisible(S.SeqLen / std::max<int64_t>(1, Map.Cp),
                S.Training ? "seq_len / cp" : "prompt / cp", Map.Tp, "tp", L.Tp);
    if (S.Training && Map.GlobalBatch)
      divisible(Map.GlobalBatch, "global_batch", Map.Dp * Map.MicroBatch,
                "dp * micro_batch", L.GlobalBatch);

    // A training mapping uses the whole system unless the scenario says
    // it runs on part of it (`devices`); a serving one may use fewer.
    // (Disaggregated serving: the prefill pool's devices besides.)
    const bool Pools = S.Traffic.Disaggregated;
    int64_t Used = Map.devices() + (Pools ? S.Traffic.Prefill.devices() : 0);
    int64_t Have = Sys.devices();
    auto Product = [&] {
      std::string P = fmt::format("dp {} x tp {} x pp {} x cp {}", Map.Dp,
                                  Map.Tp, Map.Pp, Map.Cp);
      if (Pools)
        P += fmt::format(", and the prefill pool's {}",
                         S.Traffic.Prefill.devices());
      return P;
    };
    bool Partial = S.Devices > 0;
    bool Mismatch = (Partial && (S.Devices != Used || S.Devices > Have)) ||
                    (!Partial && (S.Training ? Used != Have : Used > Have));
    if (Mismatch && !Ctx.Diags) {
      Ok = false; // quiet (a sweep point): no message to format
    } else if (Partial && S.Devices != Used) {
      error<DiagID::err_scenario_devices>(S.DevicesLoc, S.Devices, Used,
                                          Product());
    } else if (Partial && S.Devices > Have) {
      error<DiagID::err_scenario_devices_system>(S.DevicesLoc, S.Devices,
                                                 Sys.Name, Have);
    } else if (Mismatch) {
      Ok = false;
      auto D = Ctx.Diags->report<DiagID::err_mapping_devices>(
          L.Decl, Used, Product(), Sys.Name, Have);
      if (S.mappingUseElsewhere(L.Decl))
        D.note<DiagID::note_scenario_uses>(S.MappingUse, S.Name);
      if (Used < Have)
        D.note<DiagID::note_partial_system>(S.Decl, Used);
    }
    if (Ok && Pools && Used > Sys.DevicesPerNode && !Sys.ScaleOut.present()) {
      error<DiagID::err_traffic_pools_fabric>(S.Traffic.PrefillLoc, Used,
                                              Sys.Name, Sys.DevicesPerNode);
    } else if (Ok && Pools && Used > Sys.DevicesPerNode &&
               S.Traffic.Prefill.devices() % Sys.DevicesPerNode != 0) {
      // The decode pool's groups are placed from a node's first device.
      error<DiagID::err_traffic_pools_placement>(S.Traffic.PrefillLoc,
                                                 S.Traffic.Prefill.devices(),
                                                 Sys.DevicesPerNode);
    }
    if (!Ok)
      return false;

    // Groups that leave a node need a fabric between nodes.
    struct Group {
      const char *Name;
      int64_t Size, Stride;
      llvm::SMRange Loc;
    };
    for (const Group &G : {Group{"tp", Map.Tp, 1, L.Tp},
                           Group{"cp", Map.Cp, Map.Tp, L.Cp},
                           Group{"dp", Map.Dp, Map.Tp * Map.Cp, L.Dp},
                           Group{"ep", Map.Ep, Map.ExpertTp, L.Ep},
                           Group{"expert_tp", Map.ExpertTp, 1, L.ExpertTp},
                           Group{"pp", Map.Pp, Map.Tp * Map.Cp * Map.Dp, L.Pp}})
      if (G.Size > 1 && level(G.Size, G.Stride) == 1 && !Sys.HasScaleOut)
        error<DiagID::err_mapping_fabric>(G.Loc,  G.Name, G.Size, Sys.Name);
    return Ok;
  }

  /// The layers of each model chunk in model order (chunk c of stage s at
  /// c pp + s; one chunk per stage without interleaving), into Chunks:
  /// the mapping's stage_layers, its first and last stages' layers with
  /// the rest shared evenly, or an even split. Diagnoses a layout that
  /// does not add up to the model's layers.
  bool layoutChunks() {
    const MappingLocs &L = Map.Locs;
    const int64_t Pp = Map.Pp, V = Map.VirtualStages, N = Pp * V;
    const bool Listed = !Map.StageLayers.empty();
    const int64_t First = Map.FirstStageLayers, Last = Map.LastStageLayers;
    const bool Ends = First >= 0 || Last >= 0;
    Chunks.clear();
    EvenChunk = 0;
    if (!Listed && !Ends) {
      // An even split (the common case, and a sweep's every point): no
      // list, the same layers in every chunk.
      if (M.Layers % N != 0) {
        divisible(M.Layers, "layers", N,
                  V > 1 ? "pp * virtual_stages" : "pp",
                  V > 1 ? L.VirtualStages : L.Pp);
        return false;
      }
      EvenChunk = M.Layers / N;
      return true;
    }
    const llvm::SMRange EndLoc =
        First >= 0 ? L.FirstStageLayers : L.LastStageLayers;
    const char *EndName =
        First >= 0 ? "first_stage_layers" : "last_stage_layers";
    bool Was = Ok;
    Ok = true;
    if (Listed && Ends)
      error<DiagID::err_stage_layers_conflict>(EndLoc, EndName);
    else if ((Listed || Ends) && Pp < 2)
      error<DiagID::err_stage_layers_no_pipeline>(
          Listed ? L.StageLayers : EndLoc, Listed ? "stage_layers" : EndName);
    if (!Ok)
      return false;
    // Layers per stage (then split over its chunks), unless the list
    // gives every chunk's.
    std::vector<int64_t> PerStage;
    if (Listed) {
      int64_t K = int64_t(Map.StageLayers.size());
      double Sum = 0;
      for (int64_t X : Map.StageLayers)
        Sum += double(X);
      if (K != Pp && K != N)
        error<DiagID::err_stage_layers_count>(
            L.StageLayers, K,
            N == Pp ? fmt::format("{} (one per stage)", Pp)
                    : fmt::format("{} (one per stage) or {} (one per model "
                                  "chunk: pp x virtual_stages)",
                                  Pp, N));
      else if (Sum != double(M.Layers))
        error<DiagID::err_stage_layers_sum>(L.StageLayers,
                                            fmt::format("{:.0f}", Sum), M.Name,
                                            M.Layers);
      else if (K == N && N != Pp)
        Chunks = Map.StageLayers;
      else
        PerStage = Map.StageLayers;
    } else if (Ends) {
      int64_t Given = (First >= 0 ? 1 : 0) + (Last >= 0 ? 1 : 0);
      int64_t Middle = Pp - Given;
      double Rest = double(M.Layers) - double(std::max<int64_t>(0, First)) -
                    double(std::max<int64_t>(0, Last));
      if (Rest < 0 || (Middle == 0 && Rest != 0))
        error<DiagID::err_stage_layers_sum>(
            EndLoc, fmt::format("{:.0f}", double(M.Layers) - Rest), M.Name,
            M.Layers);
      else if (Middle > 0 && int64_t(Rest) % Middle != 0)
        error<DiagID::err_mapping_divisible>(
            EndLoc, "the layers left to the other stages", int64_t(Rest),
            "their count", Middle);
      else {
        int64_t Each = Middle > 0 ? int64_t(Rest) / Middle : 0;
        PerStage.assign(Pp, Each);
        if (First >= 0)
          PerStage.front() = First;
        if (Last >= 0)
          PerStage.back() = Last;
      }
    }
    if (Ok && !PerStage.empty()) {
      // Each stage's layers split evenly over its chunks (Megatron-LM
      // divides the first and last stages' by virtual_stages too).
      for (int64_t S = 0; S < Pp && Ok; ++S)
        if (PerStage[S] % V != 0)
          error<DiagID::err_mapping_divisible>(
              Listed ? L.StageLayers
                     : (S == 0 ? L.FirstStageLayers : L.LastStageLayers),
              fmt::format("the layers of stage {}", S), PerStage[S],
              "virtual_stages", V);
      if (Ok) {
        Chunks.assign(N, 0);
        for (int64_t C = 0; C < N; ++C)
          Chunks[C] = PerStage[C % Pp] / V;
      }
    }
    // Every chunk holds something: layers, the embedding (the first) or
    // the head (the last).
    for (int64_t C = 1; Ok && C + 1 < int64_t(Chunks.size()); ++C)
      if (Chunks[C] == 0)
        error<DiagID::err_stage_layers_empty>(
            Listed ? L.StageLayers : EndLoc, C, C % Pp);
    bool Laid = Ok;
    Ok = Was && Laid;
    return Laid;
  }

  /// Whether every group of Size devices, Stride apart, lies inside a
  /// node: the groups' span must tile the node (tp = 4 on 6-device nodes
  /// puts devices 4-7 in one group, across two nodes).
  bool insideNodes(int64_t Size, int64_t Stride) const {
    int64_t Span = Size * Stride;
    return Span <= Sys.DevicesPerNode && Sys.DevicesPerNode % Span == 0;
  }

  /// 0 when every group of Size devices, Stride apart, fits in one node.
  int level(int64_t Size, int64_t Stride) const {
    if (Sys.Nodes <= 1)
      return 0;
    return insideNodes(Size, Stride) ? 0 : 1;
  }

  /// Members of a group of Size devices, Stride apart, that share a node
  /// (the most of them, where the groups straddle nodes).
  int64_t perNode(int64_t Size, int64_t Stride) const {
    int64_t N = Sys.DevicesPerNode, Span = Size * Stride;
    if (insideNodes(Size, Stride))
      return Size;
    if (Stride % N == 0)
      return 1; // every member in a node of its own
    if (N % Stride == 0 && Span % N == 0)
      return std::clamp<int64_t>(N / Stride, 1, Size);
    // Groups that straddle node boundaries unevenly: the fewest members
    // any group has in one of its nodes (that node's ports bound it),
    // counted group by group (one member per node on very large systems).
    if (Map.devices() > (int64_t(1) << 16))
      return 1;
    int64_t Fewest = Size;
    for (int64_t Base = 0; Base < Map.devices(); ++Base) {
      if ((Base / Stride) % Size != 0)
        continue;
      int64_t Run = 0, Node = -1;
      for (int64_t J = 0; J < Size; ++J) {
        int64_t D = (Base + J * Stride) / N;
        if (D != Node) {
          if (Node >= 0)
            Fewest = std::min(Fewest, Run);
          Node = D;
          Run = 0;
        }
        ++Run;
      }
      Fewest = std::min(Fewest, Run);
    }
    return std::max<int64_t>(1, Fewest);
  }

  static bool inModel(const Block &B) { return B.inModel(); }

  static void scale(Op &O, double F) {
    O.Flops *= F;
    O.BytesRead *= F;
    O.BytesWritten *= F;
    O.FlopsPerContext *= F;
    O.BytesPerContext *= F;
  }

  /// An expert GEMM over the expert-parallel group: the group's ep
  /// devices each route their tokens to every expert (the all-to-all), so
  /// a device runs its 1/ep of the experts the group's tokens reach, each
  /// on the tokens of the whole group routed to it: the expert compute per
  /// device does not shrink with ep (its expert weights do).
  ///
  /// With MoE parallel folding the experts' grid is ep x expert_tp over a
  /// stage's tp x cp x dp devices: one ep x expert_tp block of devices
  /// routes its share of the stage's tokens (dp micro-batches over tp x cp
  /// x dp devices), each device holding 1/ep of the experts and 1/expert_tp
  /// of each one's MLP. Without folding (expert_tp = tp, cp = 1) the block
  /// routes ep micro-batches.
  void splitExperts(Op &O) const {
    int64_t E = Map.Ep;
    double Local = O.Ph == Phase::Decode
                       ? double(P.DecodeBatch)
                       : double(P.MicroBatch) * double(P.SeqLen) / double(Map.Cp);
    double BlockTokens = Local * double(E) * double(Map.ExpertTp) / double(Map.Tp);
    ExpertLoad Group = expertLoad(BlockTokens, *M.Moe);
    int64_t Experts = (Group.Experts + E - 1) / E;
    int64_t Tokens = Group.TokensPerExpert;
    if (O.TokenAxis == Axis::K)
      reshape(O, O.M, O.N, Tokens, Experts);
    else
      reshape(O, Tokens, O.N, O.K, Experts);
  }

  /// One op's work and kept activations per device.
  void splitOp(Op &O) const {
    int64_t T = Map.Tp, C = Map.Cp;
    bool SP = Map.SequenceParallel && T > 1;
    bool SavedSeq = O.SavedInSequenceRegion || O.SequenceRegion;
    double SavedFactor = (SavedSeq && !SP) ? 1.0 : 1.0 / T;
    if (O.routedExpert() && Map.expertsFolded()) {
      // Tokens and experts per device from the experts' grid; each
      // expert's MLP split expert_tp ways. Its input, gathered over the
      // expert_tp group, is kept whole on each member of it.
      splitAxis(O, O.TpAxis, Map.ExpertTp);
      splitExperts(O);
      O.SavedBytes *= (O.Kind == OpKind::MoeExpertUp ? double(Map.ExpertTp) : 1.0) /
                      (double(T) * double(C));
      return;
    }
    if (O.Category == OpCategory::Contraction) {
      if (!O.SequenceRegion && O.Kind == OpKind::AttnQkv && kvReplicated())
        setAxis(O, O.TpAxis, qkvWidthPerDevice());
      else if (!O.SequenceRegion)
        splitAxis(O, O.TpAxis, T);
      else if (SP)
        splitAxis(O, O.TokenAxis, T);
      if (C > 1 && O.Ph != Phase::Decode)
        splitAxis(O, O.TokenAxis, C);
    } else {
      if (!O.SequenceRegion &&
          (O.Kind == OpKind::AttnRope || O.Kind == OpKind::AttnQkNorm) &&
          kvReplicated()) {
        // Over the query and key heads a device holds: a / tp query heads
        // and one whole key head.
        double A = double(M.Heads);
        SavedFactor = (A / double(T) + 1) / (A + double(M.KvHeads));
        scale(O, SavedFactor);
      } else if (!O.SequenceRegion || SP) {
        scale(O, 1.0 / T);
      }
      if (C > 1 && O.Ph != Phase::Decode)
        scale(O, 1.0 / C);
    }
    O.SavedBytes *= SavedFactor / C;
    // Decode reads and appends the cache of the K/V heads a device holds,
    // not a 1/tp share of all of them.
    bool CacheRead = O.Ph == Phase::Decode && (O.Kind == OpKind::AttnScore ||
                                               O.Kind == OpKind::AttnContext);
    if (CacheRead)
      O.BytesPerContext *= kvCacheReplication();
    if (O.Kind == OpKind::KvAppend)
      O.BytesWritten *= kvCacheReplication();
  }

  /// Fewer K/V heads than the TP group: each device keeps one whole head
  /// (tp is a multiple of kv_heads, validate()), replicated tp / kv_heads
  /// times, as Megatron-LM and vLLM do.
  bool kvReplicated() const { return !M.Mla && Map.Tp > M.KvHeads; }

  /// The fused Q/K/V projection's output features on one device: its
  /// share of the query heads and whole K and V heads.
  int64_t qkvWidthPerDevice() const {
    int64_t T = Map.Tp, G = M.KvHeads;
    return (M.Heads / T + 2 * ((G + T - 1) / T)) * M.HeadDim;
  }

  /// How many times a device's share of the K/V cache exceeds 1/tp of it:
  /// tp / kv_heads when heads are replicated; tp for MLA, whose latent
  /// every device needs whole (DeepSeek-V2 §2.1.3).
  double kvCacheReplication() const {
    int64_t T = Map.Tp;
    if (M.Mla)
      return double(T);
    return double(T) / double(std::min<int64_t>(T, std::max<int64_t>(1, M.KvHeads)));
  }

  /// The parameters of a block's repeat on one device.
  void splitParams() {
    int64_t T = Map.Tp, E = Map.Ep;
    // Multi-token prediction on the last of several stages reads the token
    // embedding there: that stage keeps its own copy (Megatron-LM), kept
    // in step as a tied embedding is (the synchronising all-reduce is not
    // costed).
    if (S.Training && M.MtpLayers > 0 && Map.Pp > 1)
      if (Block *Head = P.block(BlockKind::Head))
        Head->Params += countParams(M).Embedding;
    for (Block &B : P.Blocks)
      if (inModel(B)) {
        B.Params /= T;
        B.WideParams /= T;
        // (Fine-tuning's adapters: split as their layers are, a factor of
        // each whole; counted as if all split.)
        if (B.Trainable > 0)
          B.Trainable /= T;
      }
    // Replicated K/V heads: a whole head's K and V weights (and biases)
    // on every device, where 1/tp of kv_heads heads was counted.
    if (kvReplicated()) {
      double PerHead = 2.0 * M.HeadDim * (M.Hidden + (M.QkvBias ? 1 : 0));
      double Extra = PerHead * (1.0 - double(M.KvHeads) / double(T));
      for (Block &B : P.Blocks)
        if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer) {
          B.Params += Extra;
          if (!Map.quantizes(QuantizedPart::AttentionIn))
            B.WideParams += Extra;
        }
    }
    // Expert parameters live on 1/ep of the devices.
    if (Block *Moe = P.block(BlockKind::MoELayer)) {
      ParamCount Pc = countParams(M);
      double ExpertParams =
          M.Moe->Experts *
          (Pc.MoePerLayer - M.Hidden * M.Moe->Experts) /
          (M.Moe->Experts + M.Moe->SharedExperts);
      // (1/tp of them was counted above; a wide part of the layer's
      // parameters is split as they are.)
      double Moved = ExpertParams * (1.0 / (double(Map.ExpertTp) * double(E)) -
                                     1.0 / double(T));
      Moe->Params += Moved;
      if (!Map.quantizes(QuantizedPart::Experts))
        Moe->WideParams += Moved;
      Moe->ExpertParams =
          ExpertParams / (double(Map.ExpertTp) * double(E));
    }
  }

  Op collective(OpKind Name, Phase Ph, CollectiveKind K, ParallelDim D,
                int64_t Size, int64_t Stride, double Bytes) {
    Op O;
    O.Kind = Name;
    O.Category = OpCategory::Communication;
    O.Ph = Ph;
    O.Collective = K;
    O.Group = D;
    O.GroupSize = static_cast<int32_t>(Size);
    O.FabricLevel = level(Size, Stride);
    O.GroupPerNode = static_cast<int32_t>(perNode(Size, Stride));
    O.MessageBytes = Bytes;
    return O;
  }

  /// Bytes of one activation of the token stream on a device (before the
  /// TP split of the sequence region).
  double streamBytes(Phase Ph) const {
    int64_t Tokens = Ph == Phase::Decode ? P.DecodeBatch
                                         : P.MicroBatch * P.SeqLen / Map.Cp;
    // The residual stream, in the base format (`precision`).
    return double(Tokens) * M.Hidden * dtypeBytes(Map.Precision);
  }

  /// Where the weight gradient the last op of Out (split) wrote goes. With
  /// gradient-accumulation fusion the GEMM's epilogue adds it into the
  /// gradient buffer: it reads and writes the buffer in the gradients'
  /// format. Without, the GEMM writes it in the weights' format and a
  /// kernel of its own adds it into the buffer (Megatron-LM's DDP hook
  /// `main_grad.add_(grad)`). The embedding table's gradient, not a
  /// GEMM's, is left out.
  void accumulate(std::vector<Op> &Out) const {
    Op &W = Out.back();
    if (W.Category != OpCategory::Contraction)
      return;
    // The weight-gradient GEMM's C is the weight: M x N, Batch of them.
    double Elements = double(W.M) * double(W.N) * double(W.Batch);
    double G = dtypeBytes(Map.Gradients);
    if (Map.GradAccumulationFusion) {
      W.BytesRead += Elements * G;
      W.BytesWritten = Elements * G;
      return;
    }
    Op Add = pointwise(OpKind::GradAccumulate, Phase::BackwardWeight,
                       Map.Gradients, G, Elements, PointwiseModel());
    Add.BytesRead = Elements * (dtypeBytes(Map.Weights) + G);
    Out.push_back(Add);
  }

  /// The linear layer a LoRA adapter's operators follow (Adapt puts them
  /// right after it), and how TP splits it.
  struct AdaptedLayer {
    enum class Role : uint8_t { Whole, Column, Row };
    Role R = Role::Whole;
    OpKind Kind = OpKind::None;
  };

  /// A LoRA adapter's own collectives (NeMo's ParallelLinearAdapter) around
  /// the operator Unsplit of a TP group of two or more, by the role of the
  /// layer it adapts (L, updated at each linear layer), before the
  /// operator or after it. Bytes: the token stream's bytes a device. Each
  /// adapter splits lora.b's outputs over the TP group (linear_out is
  /// column-parallel).
  /// - A column-parallel layer that reads the sequence-sharded stream
  ///   (qkv, q, up): with userbuffers (tp_overlap) the layer's gather
  ///   happens inside its GEMM, so the adapter gathers its input itself and
  ///   reduce-scatters its input gradient; without them the layer's
  ///   gathered input serves both (quantize keeps it wide); without
  ///   sequence parallelism the adapter's input gradient is all-reduced
  ///   apart from the layer's (linear_in's own region).
  /// - A row-parallel layer: lora.a's rank-r partial sums are all-reduced,
  ///   and lora.b's output handed back to the sequence shards by an
  ///   all-to-all (a2a_experimental) or an all-gather and split, the same
  ///   in backward; without sequence parallelism gathered whole
  ///   (gather_output).
  /// Left out, as tiny: linear_out's input-gradient all-reduce (rows x r)
  /// and a column adapter's rank-r output gather. The adapters of layers
  /// that TP does not split, and of MLA's up-projections, get none.
  /// (Out of line: the loop of splitOps stays as it was without LoRA.)
  LLVM_ATTRIBUTE_NOINLINE void adapterCollectives(AdaptedLayer &L,
                                                  const Op &Unsplit,
                                                  bool Before, double Bytes,
                                                  std::vector<Op> &Out) {
    const OpKind Kind = Unsplit.Kind;
    const Phase Ph = Unsplit.Ph;
    const bool Fwd = isForwardLike(Ph);
    const int64_t T = Map.Tp;
    const bool SP = Map.SequenceParallel;
    using Role = AdaptedLayer::Role;
    if (Before && hasWeightMatrix(Kind) &&
        (Fwd || Ph == Phase::BackwardData)) {
      // (The data gradient's axes are the forward's swapped.)
      Axis ColumnAxis = Fwd ? Axis::N : Axis::K;
      Axis RowAxis = Fwd ? Axis::K : Axis::N;
      L.R = Unsplit.TpAxis == ColumnAxis ? Role::Column
            : Unsplit.TpAxis == RowAxis  ? Role::Row
                                         : Role::Whole;
      L.Kind = Kind;
      return;
    }
    const bool ColumnIn =
        Kind == OpKind::LoraA && L.R == Role::Column &&
        (L.Kind == OpKind::AttnQkv || L.Kind == OpKind::AttnQ ||
         L.Kind == OpKind::MlpUp);
    const bool RowOut = Kind == OpKind::LoraB && L.R == Role::Row;
    const bool RowIn = Kind == OpKind::LoraA && L.R == Role::Row;
    auto Add = [&](OpKind Name, CollectiveKind K, double MessageBytes) {
      Out.emplace_back(collective(Name, Ph, K,
                                  SP ? ParallelDim::SP : ParallelDim::TP, T,
                                  1, MessageBytes));
    };
    // lora.b's output (or its gradient) between its column split and the
    // sequence shards.
    auto Back = [&](Phase At) {
      if (!SP)
        return;
      if (S.Finetune.AllToAll)
        Out.emplace_back(collective(OpKind::LoraAlltoall, At,
                                    CollectiveKind::AllToAll,
                                    ParallelDim::SP, T, 1, Bytes / double(T)));
      else
        Out.emplace_back(collective(OpKind::LoraAllgather, At,
                                    CollectiveKind::AllGather,
                                    ParallelDim::SP, T, 1, Bytes));
    };
    if (Before) {
      if (SP && Map.TpOverlap && Fwd && ColumnIn)
        Add(OpKind::LoraAllgather, CollectiveKind::AllGather, Bytes);
      // (Backward: ahead of lora.b's weight gradient, the first to read
      // the output gradient in lora.b's layout.)
      if (Ph == Phase::BackwardWeight && RowOut)
        Back(Phase::BackwardData);
      return;
    }
    if (Ph == Phase::BackwardData && ColumnIn) {
      if (!SP)
        Add(OpKind::LoraAllreduce, CollectiveKind::AllReduce, Bytes);
      else if (Map.TpOverlap)
        Add(OpKind::LoraReducescatter, CollectiveKind::ReduceScatter, Bytes);
    }
    if (Fwd && RowIn)
      // The row-parallel lora.a's partial sums (rows x r).
      Add(OpKind::LoraAllreduce, CollectiveKind::AllReduce,
          double(Unsplit.M) * double(Unsplit.N) * double(Unsplit.Batch) *
              double(Unsplit.ABytes));
    if (Fwd && RowOut) {
      if (SP)
        Back(Ph);
      else
        // (gather_output: the device's columns gathered whole.)
        Out.emplace_back(collective(OpKind::LoraAllgather, Ph,
                                    CollectiveKind::AllGather,
                                    ParallelDim::TP, T, 1, Bytes));
    }
  }

  /// Each op of the model's blocks split over the devices (splitOp), with
  /// the tensor-parallel collectives it needs before and after it; the
  /// other blocks' ops as they are. One pass, reading Source (see run) or
  /// the blocks' own ops.
  void splitOps(const std::vector<Block> *Source) {
    int64_t T = Map.Tp;
    bool SP = Map.SequenceParallel;
    // A parallel block (dense layers only): its MLP reads what its
    // attention reads, or a norm of its own of the same input (two_norms);
    // the two row-parallel outputs add up before one reduction, so the
    // output gradient both read is gathered once.
    const bool Parallel = M.ParallelBlock, Shared = M.SharedNorm;
    const bool RecomputesMoe = Map.recomputes(RecomputeModule::Moe);
    const bool Adapters = S.Finetune.adapters();
    const double StreamBytes = streamBytes(Phase::Forward),
                 DecodeStreamBytes = streamBytes(Phase::Decode);
    for (size_t I = 0; I < P.Blocks.size(); ++I) {
      Block &B = P.Blocks[I];
      const std::vector<Op> &From = Source ? (*Source)[I].Ops : B.Ops;
      if (!inModel(B)) {
        if (Source)
          B.Ops = From;
        continue;
      }
      if (!Source && T < 2 && !S.Training) {
        for (Op &O : B.Ops)
          splitOp(O);
        continue;
      }
      // Written in place when reading the cache's operators (the block's
      // storage is reused from point to point), else into Scratch.
      const size_t Room = From.size() + (T > 1 ? From.size() / 2 : 0);
      if (!Source && Scratch.capacity() < Room) {
        // (Scratch holds the list of the block before: the pool may keep
        // one with the room.)
        Ctx.Lists.recycle(std::move(Scratch));
        Scratch = Ctx.Lists.take(Room);
      }
      std::vector<Op> &Out = Source ? B.Ops : Scratch;
      Out.clear();
      Out.reserve(Room);
      AdaptedLayer Adapted; // (LoRA only)
      for (const Op &Unsplit : From) {
        // Kind and phase are what split leaves alone: the collectives
        // around the op follow from them.
        const OpKind Kind = Unsplit.Kind;
        const Phase Ph = Unsplit.Ph;
        if (T < 2) {
          splitOp(Out.emplace_back(Unsplit));
          if (Ph == Phase::BackwardWeight)
            accumulate(Out);
          continue;
        }
        // Most ops have no TP collective beside them (tpNeighbour): split
        // alone.
        if (!Adapters && !tpNeighbour(Kind)) {
          splitOp(Out.emplace_back(Unsplit));
          if (Ph == Phase::BackwardWeight)
            accumulate(Out);
          continue;
        }
        double Bytes = Ph == Phase::Decode ? DecodeStreamBytes : StreamBytes;
        bool Fwd = isForwardLike(Ph);
        auto Add = [&](OpKind Name, CollectiveKind K, bool Overlap = false) {
          Op &C = Out.emplace_back(collective(
              Name, Ph, K, SP ? ParallelDim::SP : ParallelDim::TP, T, 1, Bytes));
          C.Overlappable = Overlap;
        };
        // Before the op: with SP, the sharded sequence is gathered ahead of
        // the column-parallel GEMMs (and their gradients ahead of the
        // row-parallel ones in backward).
        bool FirstAttn = Kind == OpKind::AttnQkv || Kind == OpKind::AttnQDown ||
                         Kind == OpKind::AttnQ;
        // (A MoE layer fed by the all-to-all dispatcher takes the
        // sequence shard as it is: moeTakesShard.)
        auto Shard = [&] { return moeTakesShard(Ph); };
        bool FirstMlp =
            Kind == OpKind::MlpUp || (Kind == OpKind::MoeRouter && !Shard());
        bool GatherMlp = FirstMlp && !Shared;
        // The shared experts recomputed without the rest of their layer
        // (recompute_modules shared_experts): their checkpointed MLP
        // gathers its input and reduces its output again.
        auto SharedAlone = [&](OpKind Expert) {
          return Kind == Expert && Ph == Phase::Recompute && !RecomputesMoe;
        };
        if (SP && Fwd &&
            (FirstAttn || GatherMlp || Kind == OpKind::LmHead ||
             SharedAlone(OpKind::MoeSharedUp)))
          Add(OpKind::TpAllgather, CollectiveKind::AllGather);
        if (SP && Ph == Phase::BackwardData &&
            ((Kind == OpKind::AttnOut && !Parallel) ||
             Kind == OpKind::MlpDown ||
             (Kind == OpKind::MoeExpertDown && !Shard())))
          Add(OpKind::TpAllgather, CollectiveKind::AllGather);
        if (SP && Ph == Phase::BackwardWeight && (FirstAttn || GatherMlp))
          Add(OpKind::TpAllgatherInput, CollectiveKind::AllGather, true);
        if (Adapters)
          adapterCollectives(Adapted, Unsplit, /*Before=*/true, Bytes, Out);
        splitOp(Out.emplace_back(Unsplit));
        const int64_t HeadRows = Out.back().M; // (read by the logits' gather)
        if (Ph == Phase::BackwardWeight)
          accumulate(Out);
        if (Adapters)
          adapterCollectives(Adapted, Unsplit, /*Before=*/false, Bytes, Out);
        // After the op.
        bool Reduce = false;
        if (Fwd && ((Kind == OpKind::AttnOut && !Parallel) ||
                    Kind == OpKind::MlpDown ||
                    (Kind == OpKind::MoeCombine && !Shard()) ||
                    SharedAlone(OpKind::MoeSharedDown) ||
                    Kind == OpKind::EmbedLookup))
          Reduce = true;
        // (A shared norm's input gradient sums both branches' before its
        // one reduction, after the attention's projection.)
        if (Ph == Phase::BackwardData &&
            (FirstAttn || GatherMlp || Kind == OpKind::LmHead))
          Reduce = true;
        if (Reduce) {
          // A column-parallel layer's input gradient may be reduced while
          // its weight gradient is computed (tp_grad_overlap).
          bool Async = Map.TpGradOverlap && Ph == Phase::BackwardData;
          if (SP)
            Add(OpKind::TpReducescatter, CollectiveKind::ReduceScatter, Async);
          else
            Add(OpKind::TpAllreduce, CollectiveKind::AllReduce, Async);
        }
        if (Kind == OpKind::LmHead && !M.Encoder &&
            (Ph == Phase::Decode || Ph == Phase::Prefill)) {
          // A serving engine samples from whole rows of logits: the
          // vocabulary-parallel head gathers them, in the head's format
          // (TensorRT-LLM's lm_head, a ColumnLinear with gather_output;
          // vLLM's LogitsProcessor gathers them over the TP group). The
          // rows are the device's (split by cp in a prefill), the
          // vocabulary whole. (An encoder samples nothing.)
          double Rows = double(HeadRows) * double(Unsplit.Batch);
          Out.push_back(
              collective(OpKind::TpAllgatherLogits, Ph,
                         CollectiveKind::AllGather, ParallelDim::TP, T, 1,
                         Rows * double(Unsplit.N) * double(Unsplit.ABytes)));
        }
        if (Fwd && Kind == OpKind::LmHead && Ph != Phase::Decode &&
            Ph != Phase::Prefill) {
          // Vocabulary-parallel cross-entropy: max, sum and target logit
          // per token (Megatron-LM), three fp32 values.
          Out.push_back(collective(OpKind::TpAllreduceLoss, Ph,
                                   CollectiveKind::AllReduce, ParallelDim::TP,
                                   T, 1,
                                   double(P.MicroBatch) * P.SeqLen / Map.Cp *
                                       3 * 4));
        }
      }
      if (!Source)
        B.Ops.swap(Scratch);
    }
  }

  void insertContextParallel() {
    int64_t C = Map.Cp;
    if (C < 2)
      return;
    for (Block &B : P.Blocks) {
      if (B.Kind != BlockKind::DenseLayer && B.Kind != BlockKind::MoELayer)
        continue;
      // Ring attention: each device passes its K and V chunk around the
      // ring (cp - 1 steps); backward passes K, V and their gradients. The
      // chunks are the attention's inputs, in its format (a serving
      // engine's: docs/cost-model.md, "Number formats"), at the K/V heads
      // a device holds, or with cp_heads = query repeated to its query
      // heads (heads / tp of them, head_dim wide each).
      const DType Format =
          P.Scenario.Training ? Map.Activations : servingAttentionFormat(Map);
      const double Tokens = double(P.MicroBatch) * double(P.SeqLen / C);
      const double KvChunk =
          Map.CpQueryHeads
              ? Tokens * 2.0 * double(M.Heads / Map.Tp) * double(M.HeadDim) *
                    dtypeBytes(Format)
              : Tokens * kvElementsPerTokenPerLayer(M) /
                    std::min<int64_t>(Map.Tp, std::max<int64_t>(1, M.KvHeads)) *
                    dtypeBytes(Format);
      // The gradients' bytes over the chunk's: cp_gradients' format
      // (PyTorch accumulates them in fp32) or the chunk's own.
      const double GradShare =
          Map.CpGradients ? dtypeBytes(*Map.CpGradients) / dtypeBytes(Format)
                          : 1.0;
      // A windowed layer needs only the chunks its window reaches back to;
      // a layer pattern's two sets of products each carry their share.
      auto Steps = [&](const Op &O) {
        double All = double(C - 1);
        if (!O.Window)
          return All;
        // (Chunks: a query's keys lie within its chunk, at most the
        // chunk's length back, as a window's.)
        double Chunk = std::max(1.0, double(P.SeqLen / C));
        return std::min(All, std::ceil(double(O.span()) / Chunk));
      };
      std::vector<Op> Out;
      for (const Op &O : B.Ops) {
        bool Score = O.Kind == OpKind::AttnScore && O.Ph != Phase::Decode;
        if (Score && isForwardLike(O.Ph))
          Out.push_back(collective(OpKind::CpRingKv, O.Ph, CollectiveKind::SendRecv,
                                   ParallelDim::CP, C, Map.Tp,
                                   Steps(O) * KvChunk * O.share()));
        if (O.Kind == OpKind::AttnContextDp)
          Out.push_back(
              collective(OpKind::CpRingKvGrad, Phase::BackwardData,
                         CollectiveKind::SendRecv, ParallelDim::CP, C, Map.Tp,
                         (1 + GradShare) * Steps(O) * KvChunk * O.share()));
        Out.push_back(O);
      }
      B.Ops = std::move(Out);
    }
  }

  /// Whether the tokens entering a MoE layer are the same on every device
  /// of the TP group (no sequence parallelism, or a decode step) and the
  /// experts' ep x expert_tp blocks lie inside that group: each device
  /// then routes its block's share of tokens it already holds, with no
  /// all-to-all, and the TP all-reduce after the layer sums the experts'
  /// outputs (EP inside TP for serving, as vLLM and SGLang run it).
  bool routesLocally(Phase Ph) const {
    int64_t T = Map.Tp, Block = Map.Ep * Map.ExpertTp;
    bool Replicated = !Map.SequenceParallel || Ph == Phase::Decode;
    return T > 1 && T % Block == 0 && Replicated;
  }

  /// Whether the expert-parallel all-to-all moves the tokens.
  bool dispatchesTokens(Phase Ph) const {
    return Map.Ep > 1 && !routesLocally(Ph);
  }

  /// With sequence parallelism and the all-to-all dispatcher, a MoE layer
  /// takes each device's sequence shard as it is (Megatron-LM's
  /// MoEAlltoAllTokenDispatcher): no SP gather before the router nor
  /// scatter after the combine, unless shared experts (dense MLPs split
  /// over the TP group) need them.
  bool moeTakesShard(Phase Ph) const {
    return Map.SequenceParallel && Map.Tp > 1 && M.Moe &&
           M.Moe->SharedExperts == 0 && dispatchesTokens(Ph);
  }

  /// Under consecutive routing (expert_routing), the places a token's
  /// experts span, averaged over the tokens: the t-th token's experts are
  /// (t k + j) mod E, j < k, a device holds E / ep consecutive experts and
  /// a place is Devices devices in a row (a node's, or one). The starts
  /// repeat every E tokens.
  double consecutivePlaces(int64_t Devices) const {
    const int64_t Experts = M.Moe->Experts, K = M.Moe->TopK;
    const int64_t Local = std::max<int64_t>(1, Experts / Map.Ep);
    llvm::SmallVector<int64_t, 16> Places;
    double Sum = 0;
    for (int64_t T = 0; T < Experts; ++T) {
      Places.clear();
      for (int64_t J = 0; J < K; ++J)
        Places.push_back((T * K + J) % Experts / Local / Devices);
      llvm::sort(Places);
      Sum += double(std::unique(Places.begin(), Places.end()) - Places.begin());
    }
    return Sum / double(Experts);
  }

  /// Under node-limited routing (the model's moe.group_top_k), the places
  /// a token reaches. It takes group_top_k of the groups, and top_k /
  /// group_top_k of its experts in each: the groups are ranked by the sum
  /// of their best top_k / group_top_k scores (Megatron-LM's
  /// group_limited_topk, DeepSeek-V3's gate), so under balanced load
  /// (random scores: a learned router, Megatron-LM's forced balance) each
  /// chosen group holds about that many of the token's experts; a
  /// simulation of DeepSeek-V3's router over random logits reaches 3.12
  /// of 4 places of two groups each (3.14 here), 3.97 of 8 of one group
  /// (4) and 7.49 of 64 of an eighth of a group (7.61). Places and groups
  /// are runs of consecutive experts; counted where one holds whole others
  /// (none otherwise: the caller keeps the unlimited count).
  std::optional<double> groupLimitedPlaces(double Places) const {
    const MoEConfig &E = *M.Moe;
    const double G = double(E.Groups), Gk = double(E.GroupTopK);
    const double PerGroup = double(E.Experts) / G;
    const double PerPlace = double(E.Experts) / Places;
    const int64_t InGroup = std::max<int64_t>(1, E.TopK / E.GroupTopK);
    // C(n, r) / C(m, r): the chance r draws from m all miss m - n.
    auto MissAll = [](double N, double M, int64_t R) {
      double P = 1;
      for (int64_t I = 0; I < R; ++I)
        P *= std::max(0.0, (N - double(I)) / (M - double(I)));
      return P;
    };
    if (std::fmod(PerPlace, PerGroup) == 0)
      // A place of R whole groups is reached when one of them is chosen.
      return Places * (1 - MissAll(G - PerPlace / PerGroup, G, E.GroupTopK));
    if (std::fmod(PerGroup, PerPlace) == 0)
      // A place in one group: the group chosen, and one of its experts
      // among the group's draws.
      return Places * Gk / G *
             (1 - MissAll(PerGroup - PerPlace, PerGroup, InGroup));
    return std::nullopt;
  }

  /// Of what the all-to-all dispatcher sends (top_k copies of each token),
  /// the share a hierarchical one sends (DeepEP's normal kernels,
  /// HybridEP): a token goes once to each place that holds one of its
  /// experts and is copied to those experts there. With n places of E / n
  /// of the E experts each and top k, a uniformly routed token reaches a
  /// given place with probability p = 1 - C(E - E/n, k) / C(E, k); it goes
  /// to (n - 1) p other places, where the all-to-all sends k (n - 1) / n
  /// copies: n p / k. Across nodes the places are the nodes (DeepSeek-V3
  /// report §3.2.2: a token crosses to each node once and NVLink forwards
  /// it there; the traffic inside the nodes shrinks by the same share).
  /// Inside one node they are the devices: DeepEP's dispatch layout sends
  /// a token once to each rank its is_token_in_rank marks
  /// (deep_ep/buffer.py, get_dispatch_layout), and HybridEP dispatches to
  /// the ranks and permutes to the local experts there
  /// (deep_ep/hybrid_ep_buffer.py, dispatch).
  double hierarchicalShare() const {
    int64_t E = Map.Ep, Etp = Map.ExpertTp;
    if (Map.EpDispatchKind != EpDispatch::Hierarchical || !M.Moe)
      return 1;
    const double Places = level(E, Etp) == 0
                              ? double(E)
                              : std::ceil(double(E) / double(perNode(E, Etp)));
    const double Experts = double(M.Moe->Experts), K = double(M.Moe->TopK);
    if (Map.ExpertRoutingKind == ExpertRouting::Consecutive)
      return consecutivePlaces(level(E, Etp) == 0 ? 1 : perNode(E, Etp)) / K;
    if (M.Moe->groupLimited())
      if (std::optional<double> Reached = groupLimitedPlaces(Places))
        return std::min(1.0, *Reached / K);
    const double PerPlace = Experts / Places;
    double Miss = 1; // no expert of the token in a given place
    for (int64_t I = 0; I < M.Moe->TopK; ++I)
      Miss *= std::max(0.0, (Experts - PerPlace - double(I)) /
                                (Experts - double(I)));
    return std::min(1.0, Places * (1 - Miss) / K);
  }

  /// The expert-parallel collectives (dispatch before the experts, combine
  /// after; reversed in backward) over the ep group, expert_tp apart in
  /// Megatron-LM's expert grid: all-to-alls, or with ep_dispatch =
  /// allgather an all-gather and a reduce-scatter; with expert_tp > 1 the
  /// routed tokens are then all-gathered over the expert_tp group and the
  /// outputs reduce-scattered back. Each device dispatches its share of
  /// the tokens: micro_batch x seq / (cp tp) of them, top_k copies each.
  void insertExpertParallel() {
    int64_t E = Map.Ep, Etp = Map.ExpertTp;
    Block *B = P.block(BlockKind::MoELayer);
    if (E < 2 || !B)
      return;
    std::vector<Op> Out;
    Out.reserve(B->Ops.size() + 18); // up to 18 inserted (recompute, expert_tp)
    // The experts' last forward op: the down projection, or the pass that
    // adds its bias after it (expert_bias), before the outputs go back.
    const OpKind Last =
        llvm::any_of(B->Ops,
                     [](const Op &O) { return O.Kind == OpKind::MoeDownBias; })
            ? OpKind::MoeDownBias
            : OpKind::MoeExpertDown;
    // The share of a token's routed copies the dispatch sends.
    const double Sends = hierarchicalShare();
    for (const Op &O : B->Ops) {
      bool Fwd = isForwardLike(O.Ph);
      bool Bwd = O.Ph == Phase::BackwardData;
      if (!dispatchesTokens(O.Ph) || (!Fwd && !Bwd)) {
        Out.push_back(O);
        continue;
      }
      double Tokens = O.Ph == Phase::Decode
                          ? double(P.DecodeBatch)
                          : double(P.MicroBatch) * P.SeqLen / Map.Cp;
      // The routed values a device sends (top_k copies of its tokens).
      double Routed = Tokens / double(Map.Tp) * M.Moe->TopK * M.Hidden;
      // What goes into the experts' GEMMs travels in the activations'
      // format (a serving engine quantizes the tokens before dispatching
      // them); what comes out of them, in the base format (`precision`):
      // DeepEP dispatches FP8 and combines BF16, TensorRT-LLM dispatches
      // NVFP4 and combines BF16 (its one-sided all-to-all, tech blog 18).
      const double Share = Routed * Sends;
      const double InElem = dtypeBytes(Map.quantizes(QuantizedPart::Experts)
                                           ? Map.Activations
                                           : Map.Precision),
                   OutElem = dtypeBytes(Map.Precision);
      const double InBytes = Share * InElem, OutBytes = Share * OutElem;
      // (Megatron-LM runs a recomputation's all-to-alls exposed.)
      bool Overlap =
          Map.EpOverlap && S.Training && O.Ph != Phase::Recompute;
      // With the all-gather dispatch every member gathers the group's
      // tokens (each device's, once, not its top_k copies) and runs its
      // experts over those routed to them; the partial outputs of all the
      // group's tokens are reduce-scattered back (TensorRT-LLM's
      // CutlassFusedMoE under attention data parallelism, whose all-to-all
      // runs only where ep > top_k on multi-node NVLink: fused_moe_cutlass.py
      // select_alltoall_method_type, forward_chunk's allgather and
      // reducescatter_or_allreduce; Megatron-LM's allgather token
      // dispatcher). In backward the gradients the other way. The gathered
      // buffer is the group's: ep x a device's tokens.
      const bool Gathers = Map.EpDispatchKind == EpDispatch::AllGather;
      const double Gathered = Tokens / double(Map.Tp) * M.Hidden * double(E);
      auto Exchange = [&](OpKind Name, double Elem) {
        CollectiveKind K = CollectiveKind::AllToAll;
        double Bytes = Share * Elem;
        if (Gathers) {
          // Dispatch forward and the combine's gradient gather; the
          // combine and the dispatch's gradient reduce-scatter.
          bool Gather =
              Name == OpKind::EpDispatch || Name == OpKind::EpCombineGrad;
          K = Gather ? CollectiveKind::AllGather
                     : CollectiveKind::ReduceScatter;
          Bytes = Gathered * Elem;
        }
        Out.push_back(
            collective(Name, O.Ph, K, ParallelDim::EP, E, Etp, Bytes));
        Out.back().Overlappable = Overlap;
      };
      // The expert_tp group's routed tokens, whole on each member.
      auto Expert = [&](OpKind Name, CollectiveKind K, double Bytes) {
        if (Etp < 2)
          return;
        Out.push_back(collective(Name, O.Ph, K, ParallelDim::ETP, Etp, 1,
                                 Bytes * double(Etp)));
        Out.back().Overlappable = Overlap;
      };
      // Megatron-LM's alltoall dispatcher receives a device's tokens in
      // the order of the ranks that sent them and sorts them by local
      // expert (sort_chunks_by_idxs, "permutation 2", after the expert_tp
      // gather), and unsorts the outputs before the combine; in backward
      // the gradients the same way. One read and write of the routed
      // tokens each. The flex dispatchers (DeepEP, HybridEP:
      // hierarchical) send each token as it is and permute what arrives
      // into expert order once, in place of the permute before the
      // all-to-all (the moe.dispatch and moe.combine passes stand for it):
      // no second pass; so does the all-gather dispatch's fused kernel
      // with what it gathers. With ep 1 no all-to-all runs and nothing is
      // sorted here.
      bool Sorts = S.Training && Map.EpDispatchKind == EpDispatch::AllToAll &&
                   M.Moe->Experts / E > 1;
      auto Sort = [&](OpKind Name) {
        if (!Sorts)
          return;
        Out.push_back(pointwise(Name, O.Ph, Map.Activations,
                                dtypeBytes(Map.Activations),
                                Routed * double(Etp), PointwiseModel()));
      };
      if (Fwd && O.Kind == OpKind::MoeExpertUp) {
        Exchange(OpKind::EpDispatch, InElem);
        Expert(OpKind::EtpAllgather, CollectiveKind::AllGather, InBytes);
        Sort(OpKind::MoeSort);
      }
      if (Bwd && O.Kind == Last) {
        Exchange(OpKind::EpCombineGrad, InElem);
        Expert(OpKind::EtpAllgather, CollectiveKind::AllGather, InBytes);
        Sort(OpKind::MoeSort);
      }
      Out.push_back(O);
      if (Fwd && O.Kind == Last) {
        Sort(OpKind::MoeUnsort);
        Expert(OpKind::EtpReducescatter, CollectiveKind::ReduceScatter,
               OutBytes);
        Exchange(OpKind::EpCombine, OutElem);
      }
      if (Bwd && O.Kind == OpKind::MoeExpertUp) {
        Sort(OpKind::MoeUnsort);
        Expert(OpKind::EtpReducescatter, CollectiveKind::ReduceScatter,
               OutBytes);
        Exchange(OpKind::EpDispatchGrad, OutElem);
      }
    }
    B->Ops = std::move(Out);
  }

  void assignStages() {
    const int64_t Pp = Map.Pp;
    P.Stages.clear();
    P.Stages.resize(size_t(Pp));
    // The model's layers in order over the chunks (layoutChunks); chunk
    // c pp + s runs on stage s. A MoE model's dense layers come first,
    // then every n-th layer is MoE (moe.every).
    const bool Even = Chunks.empty(), Interleaved = Map.VirtualStages > 1,
               HasMoe = M.Moe.has_value();
    // The layers laid so far, and the MoE layers among them.
    int64_t Laid = 0, MoeLaid = 0;
    // Lays the next Layers of the model; their MoE layers.
    auto Lay = [&](int64_t Layers) -> int64_t {
      Laid += Layers;
      if (!HasMoe)
        return 0;
      const int64_t MoeToLaid = M.moeLayersBefore(Laid);
      const int64_t Moe = MoeToLaid - MoeLaid;
      MoeLaid = MoeToLaid;
      return Moe;
    };
    if (!Interleaved) {
      // A chunk a stage: whether a stage holds the blocks of the stage
      // before follows from their counts (the embedding and the head, on
      // the first and the last stage, below).
      // (The storage taken once: a store into a stage could be the
      // vector's own pointer, for all the compiler knows.)
      Stage *const Stages = P.Stages.data();
      for (int64_t Idx = 0; Idx < Pp; ++Idx) {
        const int64_t Layers = Even ? EvenChunk : Chunks[size_t(Idx)];
        const int64_t Moe = Lay(Layers);
        Stage &St = Stages[Idx];
        St.DenseLayers = Layers - Moe;
        St.MoELayers = Moe;
        St.RepeatsPrevious = Idx > 1 &&
                             St.DenseLayers == Stages[Idx - 1].DenseLayers &&
                             Moe == Stages[Idx - 1].MoELayers;
      }
    } else {
      const int64_t N =
          Even ? Pp * Map.VirtualStages : int64_t(Chunks.size());
      for (int64_t C = 0; C < N; ++C) {
        const int64_t Layers = Even ? EvenChunk : Chunks[size_t(C)];
        const int64_t Moe = Lay(Layers);
        Stage &St = P.Stages[size_t(C % Pp)];
        St.DenseLayers += Layers - Moe;
        St.MoELayers += Moe;
        St.MoEChunks.push_back(Moe);
      }
    }
    // Multi-token-prediction modules run after the last layer, on the last
    // stage (Megatron-LM's layout puts them in the last chunk): their
    // layers are of the kind of the model's last. Serving runs none.
    if (S.Training && M.MtpLayers > 0) {
      Stage &Last = P.Stages.back();
      if (!M.lastLayerMoe()) {
        Last.DenseLayers += M.MtpLayers;
      } else {
        Last.MoELayers += M.MtpLayers;
        if (!Last.MoEChunks.empty())
          Last.MoEChunks.back() += M.MtpLayers;
      }
    }
    P.Stages.front().HasEmbedding = true;
    P.Stages.back().HasHead = true;
    if (Interleaved)
      markRepeatedStages(P.Stages);
    else
      P.Stages.back().RepeatsPrevious = false; // (it holds the head)
    if (Pp < 2)
      return;
    // Activations cross each stage boundary once per micro-batch and
    // direction (each of the v model chunks with interleaving), split
    // over the TP group by the scatter/gather optimisation (Narayanan et
    // al. 2021 §4.1).
    Block Comm;
    Comm.Ops = Ctx.Lists.take(2);
    Comm.Kind = BlockKind::PipelineComm;
    Comm.Repeat = Map.VirtualStages;
    int64_t Stride = Map.Tp * Map.Cp * Map.Dp;
    auto Send = [&](Phase Ph) {
      // A pair of neighbouring stages: the group is the two of them.
      Comm.Ops.push_back(collective(OpKind::PpSendRecv, Ph, CollectiveKind::SendRecv,
                                    ParallelDim::PP, 2, Stride,
                                    streamBytes(Ph) / Map.Tp));
    };
    if (S.Training) {
      Send(Phase::Forward);
      Send(Phase::BackwardData);
    } else {
      Send(Phase::Prefill);
      Send(Phase::Decode);
    }
    auto Before = std::find_if(P.Blocks.begin(), P.Blocks.end(), [](const Block &B) {
      return B.Kind == BlockKind::Optimizer;
    });
    P.Blocks.insert(Before, std::move(Comm));
  }

  /// A group over which parameters are replicated, and how many of a
  /// device's parameters (of a block, or of the fullest stage) it holds.
  struct ReplicaGroup {
    ParallelDim Dim;
    int64_t Size, Stride;
    double Params;
  };

  /// The groups that reduce the gradients of Params parameters of which
  /// Experts are routed experts': every device holding the same weights
  /// (the data-parallel replicas and their context-parallel ranks), and
  /// for the experts the expert-data-parallel group (a stage's devices
  /// over the experts' ep x expert_tp grid; Megatron-LM's expert grid:
  /// expert_tp innermost, then ep, then expert dp). One group when the two
  /// coincide.
  llvm::SmallVector<ReplicaGroup, 2> replicaGroups(double Params,
                                                   double Experts) const {
    int64_t D = Map.weightReplicas(), Ed = Map.expertReplicas();
    llvm::SmallVector<ReplicaGroup, 2> Out;
    if (Experts <= 0 || Ed == D) {
      Out.push_back({ParallelDim::DP, D, Map.Tp, Params});
      return Out;
    }
    Out.push_back({ParallelDim::DP, D, Map.Tp, Params - Experts});
    Out.push_back({ParallelDim::EDP, Ed, Map.Ep * Map.ExpertTp, Experts});
    return Out;
  }

  /// Muon (optimizer = muon): the Newton-Schulz orthogonalization of every
  /// weight matrix the fullest stage's layers hold on this device, as
  /// Megatron-LM runs it (emerging_optimizers' newton_schulz: the matrix
  /// turned so that m <= n, then per iteration A = X X^T, B = b A + c A A,
  /// X = a X + B X: 4 m^2 n + 2 m^3 FLOPs; muon_num_ns_steps 5, in BF16 at
  /// muon_fp32_matmul_prec "medium"; tensor-parallel shards each on their
  /// own, muon_tp_mode "blockwise"). With a sharded optimizer each rank
  /// orthogonalizes whole matrices, its share of them (the layer-wise
  /// optimizer splits them over the data-parallel ranks, the routed
  /// experts' over the expert-data-parallel ones): the rank with the most
  /// sets the step, ceil(matrices / ranks) of each shape. Per shape, the
  /// three products as ops of their shapes (m x m x n, m x m x m,
  /// m x n x m), each iteration's in the batch; their BF16 operands read
  /// and their results written once (b A and a X added in the GEMMs'
  /// epilogues, as addmm does: one more read of A and of X).
  void insertNewtonSchulz(Block &Opt, const FullestStage &Fullest,
                          bool Sharded) {
    if (!S.muon())
      return;
    struct Shape {
      int64_t M, N;
      int64_t Matrices; ///< on the fullest stage
      bool Expert;
    };
    llvm::SmallVector<Shape, 16> Shapes;
    auto Add = [&](const Block *B, int64_t Layers) {
      if (!B || Layers == 0)
        return;
      for (const Op &O : B->Ops) {
        if (O.Ph != Phase::Forward || !hasWeightMatrix(O.Kind))
          continue;
        int64_t Rows = std::min(O.K, O.N), Cols = std::max(O.K, O.N);
        bool Expert = O.routedExpert() && M.Moe;
        int64_t Matrices =
            Layers * (Expert ? Map.expertsPerDevice(M.Moe->Experts)
                             : O.Batch);
        auto Same = std::find_if(Shapes.begin(), Shapes.end(),
                                 [&](const Shape &X) {
                                   return X.M == Rows && X.N == Cols &&
                                          X.Expert == Expert;
                                 });
        if (Same != Shapes.end())
          Same->Matrices += Matrices;
        else
          Shapes.push_back({Rows, Cols, Matrices, Expert});
      }
    };
    Add(P.block(BlockKind::DenseLayer), Fullest.DenseLayers);
    Add(P.block(BlockKind::MoELayer), Fullest.MoELayers);
    for (const Shape &Sh : Shapes) {
      int64_t Ranks = !Sharded ? 1
                      : Sh.Expert ? Map.expertReplicas()
                                  : Map.weightReplicas();
      int64_t Batch = int64_t(ScenarioConfig::MuonSteps) *
                      ((Sh.Matrices + Ranks - 1) / Ranks);
      const double Rows = double(Sh.M), Cols = double(Sh.N);
      // (M, N, K; what each product reads and writes, in elements.)
      const struct {
        int64_t M, N, K;
        double Read, Written;
      } Products[] = {
          {Sh.M, Sh.M, Sh.N, 2 * Rows * Cols, Rows * Rows}, // A = X X^T
          {Sh.M, Sh.M, Sh.M, 3 * Rows * Rows, Rows * Rows}, // B = b A + c A A
          {Sh.M, Sh.N, Sh.M, Rows * Rows + 2 * Rows * Cols,
           Rows * Cols}}; // X = a X + B X
      for (const auto &Pr : Products) {
        Op NS;
        NS.Kind = OpKind::MuonNewtonSchulz;
        NS.Category = OpCategory::Contraction;
        NS.Ph = Phase::Optimizer;
        NS.Type = DType::BF16;
        NS.M = Pr.M;
        NS.N = Pr.N;
        NS.K = Pr.K;
        NS.Batch = Batch;
        NS.ABytes = NS.BBytes = 2;
        NS.ModelWork = false;
        NS.Flops = 2.0 * double(Pr.M) * double(Pr.N) * double(Pr.K) *
                   double(Batch);
        NS.BytesRead = 2 * Pr.Read * double(Batch);
        NS.BytesWritten = 2 * Pr.Written * double(Batch);
        Opt.Ops.push_back(NS);
      }
    }
  }

  void insertDataParallel() {
    Block *Opt = P.block(BlockKind::Optimizer);
    if (!Opt)
      return;
    const FullestStage Fullest = fullestStage(P);
    bool Sharded = Map.Zero >= 1 || Map.DistributedOptimizer;
    // Gradients reduced in their accumulation format (`gradients`: fp32
    // main gradients by default); parameters gathered in the weights'
    // format.
    double GradBytes = dtypeBytes(Map.Gradients);
    double WeightBytes = dtypeBytes(Map.Weights);
    Opt->Params = 0;
    // The update touches this device's share of the optimizer state; the
    // zeroing, the gradient buffer the device holds (all of it but with
    // ZeRO-2 and -3, which partition the gradients); each group shards
    // the parameters it holds.
    // With fine-tuning only the adapters train: the frozen experts are
    // not among the trained parameters.
    const double Trained = Fullest.Frozen ? Fullest.Trainable : Fullest.Params;
    const double TrainedExperts = Fullest.Frozen ? 0.0 : Fullest.ExpertParams;
    auto Share = [&](bool Split) {
      double Held = 0;
      for (const ReplicaGroup &G : replicaGroups(Trained, TrainedExperts))
        Held += G.Params / (Split ? double(G.Size) : 1.0);
      return Held;
    };
    double Total = countParams(M).Total;
    for (Op &O : Opt->Ops)
      if (O.Kind == OpKind::OptimizerUpdate ||
          O.Kind == OpKind::OffloadGradToHost ||
          O.Kind == OpKind::OffloadHostUpdate ||
          O.Kind == OpKind::OffloadParamToDevice)
        scale(O, Share(Sharded) / Total);
      else if (O.Kind == OpKind::GradZero)
        scale(O, Share(Map.Zero >= 2) / Total);
    insertNewtonSchulz(*Opt, Fullest, Sharded);
    llvm::SmallVector<Op, 4> Comm;
    if (Map.Zero == 3) {
      // ZeRO-3: every layer's parameters gathered before its forward and
      // again before its backward; gradients reduce-scattered per layer.
      for (Block &B : P.Blocks) {
        if (!inModel(B))
          continue;
        // Frozen weights are gathered as the trained ones are (FSDP shards
        // them too); the gradients reduced are the trained ones' (with
        // fine-tuning, the adapters', over the data-parallel group).
        for (const ReplicaGroup &G : replicaGroups(B.Params, B.ExpertParams)) {
          if (G.Size < 2)
            continue;
          Op Gather = collective(OpKind::DpParamAllgather, Phase::Forward,
                                 CollectiveKind::AllGather, G.Dim, G.Size,
                                 G.Stride, G.Params * WeightBytes);
          // With dp_overlap (FSDP's prefetch) each layer's gather runs
          // during the layer before it.
          Gather.Overlappable = Map.DpOverlap;
          Op GatherBwd = Gather;
          GatherBwd.Ph = Phase::BackwardData;
          Op Reduce = collective(OpKind::DpGradReducescatter,
                                 Phase::BackwardWeight,
                                 CollectiveKind::ReduceScatter, G.Dim, G.Size,
                                 G.Stride,
                                 (B.Trainable < 0 ? G.Params
                                  : G.Dim == ParallelDim::DP ? B.Trainable
                                                             : 0.0) *
                                     GradBytes);
          Reduce.Overlappable = true;
          B.Ops.insert(B.Ops.begin(), Gather);
          auto FirstBwd =
              std::find_if(B.Ops.begin(), B.Ops.end(), [](const Op &O) {
                return O.Ph == Phase::BackwardData ||
                       O.Ph == Phase::BackwardWeight ||
                       O.Ph == Phase::Recompute;
              });
          B.Ops.insert(FirstBwd, GatherBwd);
          if (Reduce.MessageBytes > 0)
            B.Ops.push_back(Reduce);
        }
      }
      return;
    }
    for (const ReplicaGroup &G : replicaGroups(Trained, TrainedExperts)) {
      if (G.Size < 2 || G.Params <= 0)
        continue;
      // A sharded optimizer reduce-scatters the gradients and gathers the
      // updated parameters, overlapped with the step's compute under
      // dp_overlap. Megatron-LM's layer-wise optimizer for Muon
      // (dist_muon) keeps the whole gradient (all-reduced) and gathers the
      // matrices the other ranks updated after the step
      // (overlap_param_gather off: exposed).
      const bool Scatter = Sharded && !S.muon();
      Op Reduce = collective(
          Scatter ? OpKind::DpGradReducescatter : OpKind::DpGradAllreduce,
          Phase::Optimizer,
          Scatter ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce,
          G.Dim, G.Size, G.Stride, G.Params * GradBytes);
      Reduce.Overlappable = true;
      Comm.push_back(Reduce);
      if (Sharded) {
        Op Gather = collective(OpKind::DpParamAllgather, Phase::Optimizer,
                               CollectiveKind::AllGather, G.Dim, G.Size,
                               G.Stride, G.Params * WeightBytes);
        // (Without dp_overlap_gather, as after Muon's layer-wise update:
        // the gather waits for the step, exposed.)
        Gather.Overlappable = !S.muon() && Map.DpOverlapGather;
        Comm.push_back(Gather);
      }
    }
    Opt->Ops.insert(Opt->Ops.begin(), Comm.begin(), Comm.end());
  }

  Program &P;
  std::vector<Op> Scratch; ///< splitOps' output when it reads P's own ops
  /// Layers per model chunk (layoutChunks): Chunks for an uneven layout,
  /// else EvenChunk in every one.
  std::vector<int64_t> Chunks;
  int64_t EvenChunk = 0;
  const ScenarioConfig &S;
  const ModelConfig &M;
  const MappingConfig &Map;
  const SystemConfig &Sys;
  PassContext &Ctx;
  bool Ok = true;
};

} // namespace

bool partition(Program &P, PassContext &Ctx) {
  return Partitioner(P, Ctx).run();
}

bool partitionFrom(Program &P, const std::vector<Block> &Source,
                   PassContext &Ctx) {
  assert(Source.size() == P.Blocks.size() && "one source per block");
  return Partitioner(P, Ctx).run(&Source, /*Validated=*/true);
}

bool layoutAccepted(const ScenarioConfig &S) {
  PassContext Quiet;
  static thread_local Program Unread; // (the checks read the scenario only)
  return Partitioner(Unread, S, Quiet).validateOnly();
}

} // namespace passes
} // namespace llmsys

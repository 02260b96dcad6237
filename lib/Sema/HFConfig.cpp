//===- HFConfig.cpp - a Hugging Face config.json as model fields ----------===//
//
// The keys read per model_type, and what each becomes, are documented in
// docs/hf-config.md; keep the two in step. The defaults used for absent keys
// are those of the transformers configuration classes (LlamaConfig,
// MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig,
// DeepseekV3Config, GPT2Config).
//
//===----------------------------------------------------------------------===//

#include "Sema/HFConfig.h"

#include "Basic/Suggest.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <cmath>
#include <vector>

using namespace llvm;

namespace llmsys {
namespace sema {

namespace {

/// How a config is read: one per transformers model class llmsys maps.
enum class Style {
  Llama,
  Mistral,
  Mixtral,
  Qwen2,
  Qwen3,
  Qwen3Moe,
  DeepSeekV3,
  GPT2
};

struct StyleName {
  Style S;
  const char *ModelType;    ///< config.json "model_type"
  const char *Architecture; ///< config.json "architectures" entry
};

const StyleName Styles[] = {
    {Style::Llama, "llama", "LlamaForCausalLM"},
    {Style::Mistral, "mistral", "MistralForCausalLM"},
    {Style::Mixtral, "mixtral", "MixtralForCausalLM"},
    {Style::Qwen2, "qwen2", "Qwen2ForCausalLM"},
    {Style::Qwen3, "qwen3", "Qwen3ForCausalLM"},
    {Style::Qwen3Moe, "qwen3_moe", "Qwen3MoeForCausalLM"},
    {Style::DeepSeekV3, "deepseek_v3", "DeepseekV3ForCausalLM"},
    {Style::GPT2, "gpt2", "GPT2LMHeadModel"},
};

/// Keys that describe experts or latent attention. A config that sets one
/// its style does not read has a shape llmsys would get wrong.
const char *const MoEKeys[] = {
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "num_experts_per_tok",
    "n_shared_experts",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "first_k_dense_replace",
};
const char *const MLAKeys[] = {"q_lora_rank", "kv_lora_rank",
                               "qk_nope_head_dim", "qk_rope_head_dim",
                               "v_head_dim"};

std::string describeJSON(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return *V.getAsBoolean() ? "true" : "false";
  case json::Value::Number:
    return spec::formatNumber(*V.getAsNumber());
  case json::Value::String:
    return ("the string \"" + *V.getAsString() + "\"").str();
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  llvm_unreachable("unknown JSON kind");
}

class ConfigMapper {
public:
  ConfigMapper(const json::Object &Config, StringRef Spelled, SMRange Call,
               DiagnosticEngine &Diags)
      : Config(Config), Spelled(Spelled), Call(Call), Diags(Diags) {}

  std::optional<std::vector<HFField>> map() {
    std::optional<StyleName> Found = style();
    if (!Found)
      return std::nullopt;
    S = Found->S;
    ModelType = Found->ModelType;
    switch (S) {
    case Style::Llama:
    case Style::Mistral:
    case Style::Mixtral:
    case Style::Qwen2:
    case Style::Qwen3:
    case Style::Qwen3Moe:
    case Style::DeepSeekV3:
      mapLlamaFamily();
      break;
    case Style::GPT2:
      mapGPT2();
      break;
    }
    rejectUnread(MoEKeys, "mixture of experts");
    rejectUnread(MLAKeys, "latent attention (mla)");
    if (!Ok)
      return std::nullopt;
    return std::move(Fields);
  }

private:
  /// The style from "model_type", else from a known "architectures" entry.
  std::optional<StyleName> style() {
    ArrayRef<std::string> Known = supportedHFModelTypes();
    if (const json::Value *MT = Config.get("model_type")) {
      std::optional<StringRef> Type = MT->getAsString();
      if (!Type) {
        Diags.report<DiagID::err_hf_config_value>(Call, "model_type", Spelled,
                     "a string", describeJSON(*MT));
        return std::nullopt;
      }
      for (const StyleName &N : Styles)
        if (*Type == N.ModelType)
          return N;
      Diags
          .report<DiagID::err_hf_config_model_type>(Call, *Type, Spelled,
                  didYouMean(*Type, Known))
          .note<DiagID::note_hf_config_model_types>(SMRange(),
                join(Known, ", "));
      return std::nullopt;
    }
    if (const json::Array *Archs = Config.getArray("architectures"))
      for (const json::Value &A : *Archs)
        if (std::optional<StringRef> Name = A.getAsString())
          for (const StyleName &N : Styles)
            if (*Name == N.Architecture)
              return N;
    Diags.report<DiagID::err_hf_config_missing_key>(Call, Spelled, "model_type",
                 " (nor a supported 'architectures' entry)");
    return std::nullopt;
  }

  /// Key's value; null when it is absent or JSON null, which transformers
  /// reads as "the default".
  const json::Value *get(StringRef Key) {
    Read.insert(Key);
    const json::Value *V = Config.get(Key);
    return V && V->kind() != json::Value::Null ? V : nullptr;
  }

  void missing(StringRef Key) {
    Diags.report<DiagID::err_hf_config_missing_key>(Call, Spelled, Key,
                 " (required for model_type '" + ModelType + "')");
    Ok = false;
  }

  void unmappable(StringRef Key, const std::string &Why) {
    Diags.report<DiagID::err_hf_config_unmappable>(Call, Key, Spelled, Why);
    Ok = false;
  }

  void wrongValue(StringRef Key, StringRef Expected, const json::Value &V) {
    Diags.report<DiagID::err_hf_config_value>(Call, Key, Spelled, Expected,
                 describeJSON(V));
    Ok = false;
  }

  std::optional<double> whole(StringRef Key, bool Required) {
    const json::Value *V = get(Key);
    if (!V) {
      if (Required)
        missing(Key);
      return std::nullopt;
    }
    std::optional<double> N = V->getAsNumber();
    if (!N || !std::isfinite(*N) || *N != std::floor(*N)) {
      wrongValue(Key, "a whole number", *V);
      return std::nullopt;
    }
    return *N;
  }

  std::optional<bool> flag(StringRef Key, bool Default) {
    const json::Value *V = get(Key);
    if (!V)
      return Default;
    std::optional<bool> B = V->getAsBoolean();
    if (!B)
      wrongValue(Key, "true or false", *V);
    return B;
  }

  std::optional<StringRef> word(StringRef Key, StringRef Default) {
    const json::Value *V = get(Key);
    if (!V)
      return Default;
    std::optional<StringRef> W = V->getAsString();
    if (!W)
      wrongValue(Key, "a string", *V);
    return W;
  }

  void set(StringRef Field, spec::Value V) {
    Fields.push_back(HFField{Field.str(), std::move(V)});
  }
  void setWhole(StringRef Field, StringRef Key, bool Required) {
    if (std::optional<double> N = whole(Key, Required))
      set(Field, spec::Value::number(*N));
  }
  void setFlag(StringRef Field, StringRef Key, bool Default) {
    if (std::optional<bool> B = flag(Key, Default))
      set(Field, spec::Value::boolean(*B));
  }

  /// Llama and the models built on its decoder block: RMSNorm, rotary
  /// positions, a gated MLP, no biases (Qwen2: on q/k/v only).
  void mapLlamaFamily() {
    setWhole("layers", "num_hidden_layers", true);
    setWhole("hidden", "hidden_size", true);
    setWhole("heads", "num_attention_heads", true);
    // Qwen3's configuration classes default these otherwise than llmsys
    // does (head_dim 128 whatever the width; 32 and 4 K/V heads): their
    // configs must state them.
    bool Qwen3 = S == Style::Qwen3 || S == Style::Qwen3Moe;
    setWhole("kv_heads", "num_key_value_heads", Qwen3);
    // DeepSeek-V3's per-head width is v_head_dim (q/k add the rope part).
    std::optional<double> VHeadDim;
    if (S == Style::DeepSeekV3) {
      VHeadDim = whole("v_head_dim", true);
      if (VHeadDim)
        set("head_dim", spec::Value::number(*VHeadDim));
    } else {
      setWhole("head_dim", "head_dim", Qwen3);
    }
    // The dense MLP; in DeepSeek-V3 only the first_k_dense_replace layers
    // have it, in Mixtral it is the width of one expert.
    std::optional<double> Ffn = whole("intermediate_size", true);
    if (Ffn)
      set("ffn", spec::Value::number(*Ffn));
    if (std::optional<StringRef> Act = word("hidden_act", "silu")) {
      // The MLP is gated (gate_proj, up_proj, down_proj): the activation
      // names the gate's nonlinearity.
      if (*Act == "silu" || *Act == "swish")
        set("activation", spec::Value::enumWord("swiglu"));
      else if (Act->startswith("gelu"))
        set("activation", spec::Value::enumWord("geglu"));
      else
        unmappable("hidden_act",
                   "a gated MLP with '" + Act->str() +
                       "' has no llmsys activation (swiglu, geglu)");
    }
    set("norm", spec::Value::enumWord("rmsnorm"));
    set("positional", spec::Value::enumWord("rotary"));
    setWhole("vocab", "vocab_size", true);
    setWhole("max_seq", "max_position_embeddings", true);
    setFlag("tied_embeddings", "tie_word_embeddings", false);
    set("bias", spec::Value::boolean(false));
    if (S == Style::Qwen2) {
      // Qwen2Attention always has q/k/v biases; the config has no key.
      set("qkv_bias", spec::Value::boolean(true));
    } else if (std::optional<bool> B = flag("attention_bias", false)) {
      // attention_bias also biases o_proj; llmsys counts q/k/v biases only.
      set("qkv_bias", spec::Value::boolean(*B));
    }
    if (std::optional<bool> B = flag("mlp_bias", false); B && *B)
      unmappable("mlp_bias", "llmsys models have biases everywhere ('bias') "
                             "or on q/k/v only ('qkv_bias')");
    // Qwen3Attention normalises each query and key head (q_norm, k_norm);
    // the config has no key.
    if (Qwen3)
      set("qk_norm", spec::Value::boolean(true));

    switch (S) {
    case Style::Mistral:
    case Style::Mixtral:
      setWhole("sliding_window", "sliding_window", false);
      break;
    case Style::Qwen2:
    case Style::Qwen3:
    case Style::Qwen3Moe:
      // Qwen2 and Qwen3 configs carry a window that only applies when
      // enabled, and then to the layers from max_window_layers on
      // (Qwen3-MoE's class has no such key: every layer).
      if (std::optional<bool> On = flag("use_sliding_window", false)) {
        if (*On)
          mapQwenWindow();
        else {
          Read.insert("sliding_window");
          Read.insert("max_window_layers");
        }
      }
      break;
    case Style::Llama:
    case Style::DeepSeekV3:
    case Style::GPT2:
      break;
    }

    if (S == Style::Qwen3Moe)
      mapQwen3Experts();
    if (S == Style::Mixtral) {
      setWhole("moe.experts", "num_local_experts", true);
      setWhole("moe.top_k", "num_experts_per_tok", true);
      if (Ffn)
        set("moe.expert_ffn", spec::Value::number(*Ffn));
    }
    if (S == Style::DeepSeekV3) {
      setWhole("moe.experts", "n_routed_experts", true);
      setWhole("moe.top_k", "num_experts_per_tok", true);
      setWhole("moe.shared_experts", "n_shared_experts", false);
      setWhole("moe.expert_ffn", "moe_intermediate_size", true);
      // Node-limited routing: a token's experts from topk_group of the
      // n_group groups (none where every group may be used: Kimi-K2's 1
      // and 1).
      std::optional<double> Groups = whole("n_group", false);
      std::optional<double> GroupTopK = whole("topk_group", false);
      if (Groups && GroupTopK && *Groups > 1 && *GroupTopK < *Groups) {
        set("moe.groups", spec::Value::number(*Groups));
        set("moe.group_top_k", spec::Value::number(*GroupTopK));
      }
      // DeepseekV3DecoderLayer: layer j (0-based) is MoE when j >=
      // first_k_dense_replace and j % moe_layer_freq == 0. llmsys's
      // moe.every counts from the dense layers: with dense_layers d and
      // every n, layers d + n - 1, d + 2n - 1, ... (0-based); the first MoE
      // layer j0 (the first multiple of the frequency past the dense
      // ones) fixes d = j0 - n + 1.
      std::optional<double> Dense = whole("first_k_dense_replace", false);
      std::optional<double> Freq = whole("moe_layer_freq", false);
      double K = Dense.value_or(0), F = Freq.value_or(1);
      if (F < 1) {
        if (Freq)
          wrongValue("moe_layer_freq", "a whole number of at least 1",
                     *get("moe_layer_freq"));
      } else if (F == 1) {
        if (Dense)
          set("moe.dense_layers", spec::Value::number(K));
      } else if (double First = std::ceil(K / F) * F; First - F + 1 < 0) {
        unmappable("moe_layer_freq",
                   "layer 0 is a MoE layer; llmsys's moe.every puts the "
                   "first MoE layer at the every-th after moe.dense_layers");
      } else {
        set("moe.dense_layers", spec::Value::number(First - F + 1));
        set("moe.every", spec::Value::number(F));
      }
      setWhole("mtp_layers", "num_nextn_predict_layers", false);
      // null: queries are not compressed.
      setWhole("mla.q_lora_rank", "q_lora_rank", false);
      setWhole("mla.kv_lora_rank", "kv_lora_rank", true);
      setWhole("mla.qk_nope_head_dim", "qk_nope_head_dim", true);
      setWhole("mla.qk_rope_head_dim", "qk_rope_head_dim", true);
      if (VHeadDim)
        set("mla.v_head_dim", spec::Value::number(*VHeadDim));
    }
  }

  /// Qwen2Attention and Qwen3Attention with use_sliding_window: the
  /// layers from max_window_layers on attend within sliding_window (the
  /// classes' default 28; Qwen3-MoE's has no such key: every layer).
  /// llmsys has a window for every layer or none.
  void mapQwenWindow() {
    std::optional<double> Window = whole("sliding_window", false);
    std::optional<double> Layers = whole("num_hidden_layers", false);
    std::optional<double> From = whole("max_window_layers", false);
    double First = From.value_or(S == Style::Qwen3Moe ? 0 : 28);
    if (!Window || !Layers || First >= *Layers)
      return; // no layer windowed
    if (First > 0) {
      unmappable("max_window_layers",
                 "a window on the layers from " + spec::formatNumber(First) +
                     " on only has no llmsys field (sliding_window is every "
                     "layer's)");
      return;
    }
    set("sliding_window", spec::Value::number(*Window));
  }

  /// Qwen3MoeDecoderLayer: layer j (0-based) is MoE when it is not in
  /// mlp_only_layers and (j + 1) is a multiple of decoder_sparse_step;
  /// llmsys writes that set as moe.dense_layers d and moe.every n (the
  /// layers j >= d with j - d + 1 a multiple of n). No expert, or no MoE
  /// layer, is a dense model. (transformers reads num_local_experts as
  /// num_experts.)
  void mapQwen3Experts() {
    const char *ExpertsKey =
        get("num_experts") || !get("num_local_experts") ? "num_experts"
                                                         : "num_local_experts";
    std::optional<double> Experts = whole(ExpertsKey, true);
    std::optional<double> TopK = whole("num_experts_per_tok", true);
    std::optional<double> ExpertFfn = whole("moe_intermediate_size", true);
    std::optional<double> Step = whole("decoder_sparse_step", false);
    std::optional<double> Layers = whole("num_hidden_layers", false);
    double N = Step.value_or(1);
    if (N < 1) {
      wrongValue("decoder_sparse_step", "a whole number of at least 1",
                 *get("decoder_sparse_step"));
      return;
    }
    if (!Experts || !Layers || *Layers < 1)
      return;
    int64_t L = int64_t(std::min(*Layers, 1e6));
    std::vector<bool> IsMoe(size_t(L), false);
    for (int64_t J = 0; J < L; ++J)
      IsMoe[size_t(J)] = *Experts > 0 && int64_t(J + 1) % int64_t(N) == 0;
    if (const json::Value *Dense = get("mlp_only_layers")) {
      const json::Array *List = Dense->getAsArray();
      if (!List) {
        wrongValue("mlp_only_layers", "a list of layer indices", *Dense);
        return;
      }
      for (const json::Value &V : *List) {
        std::optional<double> J = V.getAsNumber();
        if (!J || *J != std::floor(*J)) {
          wrongValue("mlp_only_layers", "a list of layer indices", *Dense);
          return;
        }
        if (*J >= 0 && *J < double(L))
          IsMoe[size_t(*J)] = false;
      }
    }
    int64_t J0 = std::find(IsMoe.begin(), IsMoe.end(), true) - IsMoe.begin();
    if (J0 == L)
      return; // a dense model
    // The first MoE layer j0 gives d = j0 - n + 1 with every n (n = the
    // step); the set must then be llmsys's.
    int64_t Every = int64_t(N), D = J0 - Every + 1;
    bool Fits = D >= 0;
    for (int64_t J = 0; J < L && Fits; ++J)
      Fits = IsMoe[size_t(J)] == (J >= D && (J - D + 1) % Every == 0);
    if (!Fits) {
      unmappable("mlp_only_layers",
                 "its MoE layers are not every decoder_sparse_step-th after "
                 "a leading run of dense ones (moe.dense_layers, moe.every)");
      return;
    }
    set("moe.experts", spec::Value::number(*Experts));
    if (TopK)
      set("moe.top_k", spec::Value::number(*TopK));
    if (ExpertFfn)
      set("moe.expert_ffn", spec::Value::number(*ExpertFfn));
    if (D > 0)
      set("moe.dense_layers", spec::Value::number(double(D)));
    if (Every > 1)
      set("moe.every", spec::Value::number(double(Every)));
  }

  /// GPT-2: LayerNorm, learned positions, a plain MLP, biases everywhere.
  void mapGPT2() {
    setWhole("layers", "n_layer", true);
    std::optional<double> Embd = whole("n_embd", true);
    if (Embd)
      set("hidden", spec::Value::number(*Embd));
    setWhole("heads", "n_head", true);
    if (std::optional<double> Inner = whole("n_inner", false))
      set("ffn", spec::Value::number(*Inner));
    else if (Embd) // n_inner null: 4 * n_embd (GPT2MLP)
      set("ffn", spec::Value::number(4 * *Embd));
    if (std::optional<StringRef> Act =
            word("activation_function", "gelu_new")) {
      if (Act->startswith("gelu") || *Act == "quick_gelu")
        set("activation", spec::Value::enumWord("gelu"));
      else if (*Act == "relu")
        set("activation", spec::Value::enumWord("relu"));
      else if (*Act == "silu" || *Act == "swish")
        set("activation", spec::Value::enumWord("silu"));
      else
        unmappable("activation_function",
                   "'" + Act->str() + "' has no llmsys activation");
    }
    set("norm", spec::Value::enumWord("layernorm"));
    set("positional", spec::Value::enumWord("learned"));
    setWhole("vocab", "vocab_size", true);
    setWhole("max_seq", "n_positions", true);
    setFlag("tied_embeddings", "tie_word_embeddings", true);
    set("bias", spec::Value::boolean(true));
  }

  template <size_t N>
  void rejectUnread(const char *const (&Keys)[N], const char *What) {
    for (const char *Key : Keys) {
      if (Read.contains(Key))
        continue;
      const json::Value *V = Config.get(Key);
      if (!V || V->kind() == json::Value::Null)
        continue;
      // 0 experts or rank 0 is the same shape as leaving the key out.
      if (std::optional<double> Num = V->getAsNumber(); Num && *Num == 0)
        continue;
      unmappable(Key, "llmsys reads no " + std::string(What) + " from a '" +
                          ModelType + "' config");
    }
  }

  const json::Object &Config;
  StringRef Spelled;
  SMRange Call;
  DiagnosticEngine &Diags;
  Style S = Style::Llama;
  std::string ModelType;
  StringSet<> Read;
  std::vector<HFField> Fields;
  bool Ok = true;
};

} // namespace

ArrayRef<std::string> supportedHFModelTypes() {
  static const std::vector<std::string> Types = [] {
    std::vector<std::string> T;
    for (const StyleName &N : Styles)
      T.push_back(N.ModelType);
    return T;
  }();
  return Types;
}

std::optional<std::vector<HFField>> importHFConfig(StringRef FilePath,
                                                   StringRef Spelled,
                                                   SMRange Call,
                                                   DiagnosticEngine &Diags) {
  if (sys::fs::is_directory(FilePath)) {
    Diags.report<DiagID::err_hf_config_read>(Call, Spelled, "is a directory");
    return std::nullopt;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(FilePath, /*IsText=*/true);
  if (!Buf) {
    Diags.report<DiagID::err_hf_config_read>(Call, Spelled,
                 Buf.getError().message());
    return std::nullopt;
  }
  Expected<json::Value> Parsed = json::parse((*Buf)->getBuffer());
  if (!Parsed) {
    Diags.report<DiagID::err_hf_config_json>(Call, Spelled,
                 toString(Parsed.takeError()));
    return std::nullopt;
  }
  const json::Object *Config = Parsed->getAsObject();
  if (!Config) {
    Diags.report<DiagID::err_hf_config_json>(Call, Spelled,
                 "the top level is " + describeJSON(*Parsed) +
                     ", not an object");
    return std::nullopt;
  }
  return ConfigMapper(*Config, Spelled, Call, Diags).map();
}

} // namespace sema
} // namespace llmsys

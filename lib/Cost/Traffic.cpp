//===- Traffic.cpp - serving requests by in-flight batching ---------------===//
//
// One replica's engine, step by step, as TensorRT-LLM and vLLM run it:
// each step runs one token of every sequence that is generating and the
// whole prompt of the requests admitted at that step, in one forward. A
// waiting request is admitted while the step has a slot (`max_batch`
// sequences), its prompt fits the step's token budget (`max_tokens`, one
// token per generating sequence counted) and its whole prompt and output
// fit in the free KV cache (reserved at admission, as TensorRT-LLM's
// GUARANTEED_NO_EVICT policy does: no request is ever preempted). The
// cache is counted in blocks of `kv_block` tokens. With on-demand admission
// (vLLM) a request is admitted when its prompt's blocks fit and takes one
// more block each time its context grows into one; when a step's
// generating sequences need more blocks than are free, the latest admitted
// are preempted and later recompute their prompt and generated tokens.
//
// A step of T tokens (d generating sequences with contexts c_i and the
// prompts of n new requests) takes
//   dense(T) - head(T) + head(s) + attn(d) * mean(c_i)
//     + n * prefill_attention
// where dense(T) is the decode step of a program at batch T with no
// context (every GEMM, norm and collective, the weights read once for all
// T tokens), head(s) its LM head (and its logits' gather at TP >= 2) over
// the s positions that give a token
// (d, and the prompts read to their end), attn(d) the decode attention of
// d sequences per token of context (linear in the context: it reads the
// cache), and
// prefill_attention the attention products of one prompt. dense and attn
// come from the scenario's programs at those batches, built by the caller
// and interpolated between buckets above 64 (every 1/8 of an octave), so
// that thousands of requests take milliseconds.
//
// Replicas (dp) serve equal shares of the requests (and of the rate or
// the clients); their throughputs add up.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <random>

namespace llmsys {
namespace cost {

using namespace ir;

namespace {

/// A step's cost at a batch: time and data energy, each a part for the
/// step's tokens and a part per token of context.
struct StepCost {
  double Dense = 0, PerContext = 0, Energy = 0, EnergyPerContext = 0;
  double Head = 0; ///< the LM head's part of Dense
  /// All the step's activity (FLOPs too; Activity -1: an input missing),
  /// and its LM head's part.
  double Activity = -1, ActivityPerContext = 0, HeadActivity = 0;
  StepCost lerp(const StepCost &B, double F) const {
    return {Dense + F * (B.Dense - Dense),
            PerContext + F * (B.PerContext - PerContext),
            Energy + F * (B.Energy - Energy),
            EnergyPerContext + F * (B.EnergyPerContext - EnergyPerContext),
            Head + F * (B.Head - Head),
            Activity < 0 || B.Activity < 0
                ? -1
                : Activity + F * (B.Activity - Activity),
            ActivityPerContext +
                F * (B.ActivityPerContext - ActivityPerContext),
            HeadActivity + F * (B.HeadActivity - HeadActivity)};
  }
};

/// dense(T) and attn(T), from programs at bucketed batches.
class StepCosts {
public:
  StepCosts(const ProgramAtBatch &AtBatch, double RefContext,
            const SystemConfig *Sys)
      : AtBatch(AtBatch), RefContext(std::max(1.0, RefContext)), Sys(Sys) {}

  /// With chunked attention the cost per token of context is the mean
  /// over the contexts First .. Last (a chunked layer's read falls back at
  /// each chunk's first token: one reference context would land anywhere
  /// on that sawtooth), per token of their mean context.
  void overContexts(double First, double Last, double Chunk) {
    RangeFirst = std::max(1.0, First);
    RangeLast = std::max(RangeFirst, Last);
    RangeChunk = Chunk;
  }

  /// False when a program could not be built (diagnosed by the builder).
  bool ok() const { return Ok; }

  /// A step's cost at a batch: dense(T) and its head at T tokens,
  /// attn per context and the data energy at T sequences.
  StepCost at(int64_t N) {
    N = std::max<int64_t>(1, N);
    if (N <= 64)
      return exact(N);
    // Buckets at 64 * 2^(k/8), linear between them.
    double K = std::floor(8 * std::log2(double(N) / 64));
    int64_t Lo = int64_t(std::llround(64 * std::exp2(K / 8)));
    int64_t Hi = int64_t(std::llround(64 * std::exp2((K + 1) / 8)));
    Lo = std::min(Lo, N);
    Hi = std::max(Hi, Lo + 1);
    StepCost A = exact(Lo), B = exact(Hi);
    return A.lerp(B, double(N - Lo) / double(Hi - Lo));
  }

private:
  StepCost exact(int64_t Batch) {
    auto It = Memo.find(Batch);
    if (It != Memo.end())
      return It->second;
    StepCost V;
    if (const Program *P = AtBatch(Batch)) {
      double Dense = decodeStepTime(*P, 0, Sys);
      V.Dense = Dense;
      V.Head = std::min(Dense, decodeHeadTime(*P, Sys));
      if (RangeChunk > 0) {
        double Mean =
            chunkedTpot(RangeFirst, RangeLast, RangeChunk, [&](double C) {
              return decodeStepTime(*P, C, Sys) - Dense;
            });
        V.PerContext = std::max(0.0, Mean) / ((RangeFirst + RangeLast) / 2);
      } else {
        double WithContext = decodeStepTime(*P, RefContext, Sys);
        V.PerContext = std::max(0.0, WithContext - Dense) / RefContext;
      }
      StepEnergy E = decodeStepEnergy(*P, 0, Sys);
      if (E.Data > 0 || E.Activity >= 0) {
        StepEnergy AtRef = decodeStepEnergy(*P, RefContext, Sys);
        V.Energy = E.Data;
        V.EnergyPerContext =
            std::max(0.0, (AtRef.Data - E.Data) / RefContext);
        double Head = decodeHeadActivity(*P, Sys);
        if (E.Activity >= 0 && AtRef.Activity >= 0 && Head >= 0) {
          V.Activity = E.Activity;
          V.ActivityPerContext =
              std::max(0.0, (AtRef.Activity - E.Activity) / RefContext);
          V.HeadActivity = std::min(E.Activity, Head);
        }
      }
    } else {
      Ok = false;
    }
    return Memo[Batch] = V;
  }

  const ProgramAtBatch &AtBatch;
  double RefContext;
  double RangeFirst = 1, RangeLast = 1, RangeChunk = 0;
  const SystemConfig *Sys;
  std::map<int64_t, StepCost> Memo;
  bool Ok = true;
};

struct Request {
  double Arrival = 0;
  double FirstToken = 0;
  int64_t Prompt = 0, Output = 0; ///< this request's lengths
  int64_t Generated = 0;
  /// Tokens in the cache: of the prompt while it is read, then prompt
  /// and generated tokens.
  int64_t Context = 0;
  /// Tokens its prefill reads: the prompt, or after a preemption the
  /// prompt and the tokens generated before it (recomputed).
  int64_t ReadLen = 0;
  /// KV cache blocks it holds, and when it was admitted (preemption takes
  /// the latest first).
  int64_t Blocks = 0, Admitted = 0;
  bool Started = false; ///< its first token is out
  double Done = 0;
  int64_t Rank = 0; ///< the rank of its lockstep group that serves it
};

Percentiles percentiles(std::vector<double> V) {
  Percentiles P;
  if (V.empty())
    return P;
  std::sort(V.begin(), V.end());
  double Sum = 0;
  for (double X : V)
    Sum += X;
  P.Mean = Sum / double(V.size());
  // Nearest rank.
  auto Rank = [&](double Q) {
    size_t I = size_t(std::ceil(Q * double(V.size())));
    return V[std::min(V.size(), std::max<size_t>(1, I)) - 1];
  };
  P.P50 = Rank(0.50);
  P.P90 = Rank(0.90);
  P.P99 = Rank(0.99);
  return P;
}

/// Uniform in [0, 1) from the generator's raw bits (the same on every
/// platform, unlike the standard distributions).
double uniform(std::mt19937_64 &G) { return double(G() >> 11) * 0x1.0p-53; }

/// A standard normal draw (Box-Muller, one of the pair).
double gaussian(std::mt19937_64 &G) {
  double U = 1 - uniform(G), V = uniform(G);
  return std::sqrt(-2 * std::log(U)) * std::cos(2 * M_PI * V);
}

/// A length of the given mean and standard deviation, rounded, at least 1.
int64_t drawLength(std::mt19937_64 &G, LengthDistribution D, double Mean,
                   double Stdev) {
  if (Stdev <= 0)
    return int64_t(std::llround(Mean));
  double X = Mean;
  switch (D) {
  case LengthDistribution::Normal:
    X = Mean + Stdev * gaussian(G);
    break;
  case LengthDistribution::Lognormal: {
    double S2 = std::log1p(Stdev * Stdev / (Mean * Mean));
    X = std::exp(std::log(Mean) - S2 / 2 + std::sqrt(S2) * gaussian(G));
    break;
  }
  case LengthDistribution::Uniform:
    X = Mean + Stdev * std::sqrt(3.0) * (2 * uniform(G) - 1);
    break;
  }
  return std::max<int64_t>(1, int64_t(std::llround(X)));
}

/// Attention-data-parallel ranks whose tokens meet in an expert-parallel
/// group (dp replicas with ep across them, TensorRT-LLM's attention DP and
/// SGLang's DP attention beside expert parallelism): every MoE layer's
/// all-to-all waits for the whole group, so its ranks run each forward
/// together, an idle rank a dummy one, and a step lasts as long as its
/// slowest rank's. The ranks of one group (1: replicas apart). A
/// disaggregated pool is simulated apart.
int64_t lockstepRanks(const ScenarioConfig &S, const TrafficConfig &Tr) {
  const MappingConfig &M = S.Mapping;
  if (!S.Model.Moe || M.Ep <= 1 || M.Dp <= 1 || Tr.Prefilled ||
      Tr.PrefillOnly)
    return 1;
  const int64_t Tp = std::max<int64_t>(1, M.Tp);
  if (M.Ep % Tp != 0)
    return 1;
  const int64_t Ranks = std::min(M.Dp, M.Ep / Tp);
  return Ranks > 1 && M.Dp % Ranks == 0 ? Ranks : 1;
}

} // namespace

bool simulateTraffic(const Program &P, const ProgramAtBatch &AtBatch,
                     ServingReport &R, DiagnosticEngine *Diags,
                     const SystemConfig *Sys, const TrafficConfig *Traffic,
                     std::vector<RequestTimes> *Times) {
  const ScenarioConfig &S = P.Scenario;
  const TrafficConfig &Tr = Traffic ? *Traffic : S.Traffic;
  const SystemConfig &System = Sys ? *Sys : S.System;
  const AcceleratorConfig &A = System.Device;
  const int64_t Prompt = P.SeqLen, Output = std::max<int64_t>(1, S.OutputLen);
  const int64_t Replicas = std::max<int64_t>(1, S.Mapping.Dp);
  // One group of ranks that step together (one replica, or an expert-
  // parallel group's attention-DP ranks) is simulated, with its share of
  // the requests, each rank its own; the groups serve equal shares.
  const int64_t Lockstep = lockstepRanks(S, Tr);
  const int64_t Groups = Replicas / Lockstep;
  const int64_t Requests = (Tr.Requests + Replicas - 1) / Replicas * Lockstep;

  // The KV cache: what the weights and the activations of a full step
  // leave, times kv_fraction, in tokens of context.
  double Activations =
      R.Memory.Activations * double(Tr.MaxTokens) / double(std::max<int64_t>(1, Prompt));
  double Free = A.HbmCapacity - R.Memory.Weights - R.Memory.Reserved - Activations;
  double PerToken = kvCacheBytesPerToken(P);
  int64_t KvTokens =
      PerToken > 0 ? int64_t(std::floor(std::max(0.0, Free) * Tr.KvFraction / PerToken))
                   : int64_t(1) << 50;
  // Each request's lengths: the scenario's, or drawn around them (a
  // generator of their own, so that arrivals do not depend on them).
  std::vector<Request> All(static_cast<size_t>(Requests));
  std::mt19937_64 LengthGen(Tr.Seed ^ 0x9E3779B97F4A7C15ull);
  int64_t Longest = 0;
  double SumPrompt = 0, SumOutput = 0;
  for (size_t I = 0; I < All.size(); ++I) {
    Request &Q = All[I];
    if (Tr.Trace) {
      // The first group's share of the recorded requests: one row in as
      // many as there are groups, over the trace's rows again when the
      // requests outnumber them (passes over a dataset; arrival times
      // never repeat: Sema).
      // (Where the groups and the rows share a factor, every Groups-th
      // request would meet only some of the rows: each pass then starts
      // one row further, so that the share reaches them all.)
      const size_t Global = I * size_t(Groups), Rows = Tr.Trace->size();
      const size_t Shift = std::gcd(size_t(Groups), Rows) > 1 ? Global / Rows : 0;
      const spec::TraceRequest &Row = (*Tr.Trace)[(Global + Shift) % Rows];
      Q.Prompt = Row.Prompt;
      Q.Output = Row.Output;
      Q.Arrival = Row.Arrival;
    } else {
      Q.Prompt = drawLength(LengthGen, Tr.Lengths, double(Prompt), Tr.PromptStdev);
      Q.Output = drawLength(LengthGen, Tr.Lengths, double(Output), Tr.OutputStdev);
      // A drawn request fits the model's context (prompt + output - 1
      // tokens attended) when the scenario's own lengths do: the prompt
      // first, then the output, truncated. (A scenario beyond max_seq is
      // a what-if Sema warns about; its draws are kept.)
      int64_t Context = S.Model.MaxSeq;
      bool Fits = Prompt + Output - 1 <= Context;
      if (Fits && Context > 1 && Q.Prompt + Q.Output - 1 > Context) {
        Q.Prompt = std::min<int64_t>(Q.Prompt, Context);
        Q.Output = std::max<int64_t>(1, Context + 1 - Q.Prompt);
      }
    }
    // Without chunked prefill a prompt is read in one step. (A prefilled
    // prompt is not read: only its last token is.)
    if (!Tr.ChunkedPrefill && !Tr.Prefilled)
      Q.Prompt = std::min<int64_t>(Q.Prompt, Tr.MaxTokens);
    Q.Rank = int64_t(I) % Lockstep; // the group's ranks in turn
    Longest = std::max(Longest, Q.Prompt + (Tr.PrefillOnly ? 1 : Q.Output));
    SumPrompt += double(Q.Prompt);
    SumOutput += double(Q.Output);
  }
  // The cache in blocks of kv_block tokens; a request holds whole blocks.
  const int64_t BlockTokens = std::max<int64_t>(1, Tr.KvBlock);
  const int64_t KvBlocks = KvTokens / BlockTokens;
  auto BlocksFor = [&](int64_t Tokens) {
    return (Tokens + BlockTokens - 1) / BlockTokens;
  };
  for (Request &Q : All)
    Q.ReadLen = Q.Prompt;
  if (KvBlocks < BlocksFor(Longest)) {
    if (Diags)
      Diags->report<DiagID::err_traffic_kv>(
          Tr.Use, S.Name, Longest, double(Longest) * PerToken / 1e9,
          std::max(0.0, Free) * Tr.KvFraction / 1e9);
    return false;
  }

  StepCosts Cost(AtBatch, double(Prompt + Output / 2), Sys);
  if (S.Model.AttentionChunk > 0)
    Cost.overContexts(double(Prompt + 1),
                      double(Prompt + std::max<int64_t>(1, Output - 1)),
                      double(S.Model.AttentionChunk));
  // The attention products of the scenario's prompt (a prompt's grow
  // with its square; a fused kernel's fixed cost per block, with its
  // length).
  AttentionParts PrefillAttn = prefillAttentionTime(P, Sys);
  double Sequences = double(std::max<int64_t>(1, P.MicroBatch));
  double PrefillAttention = PrefillAttn.Quadratic / Sequences;
  double PrefillAttentionBlocks = PrefillAttn.Linear / Sequences;
  // Its activity likewise (-1: an energy input missing).
  double PrefillAttentionEnergy = prefillAttentionActivity(P, Sys);
  if (PrefillAttentionEnergy >= 0)
    PrefillAttentionEnergy /= Sequences;


  // Arrivals.
  std::mt19937_64 Gen(Tr.Seed);
  int64_t Released = 0; // requests whose arrival time is set
  if (Tr.Arrival == ArrivalKind::Trace) {
    // The recorded times, in order.
    std::stable_sort(All.begin(), All.end(), [](const Request &A, const Request &B) {
      return A.Arrival < B.Arrival;
    });
    Released = Requests;
  } else if (Tr.Arrival == ArrivalKind::Poisson) {
    double Rate = Tr.Rate / double(Groups), T = 0;
    for (Request &Q : All) {
      T += -std::log1p(-uniform(Gen)) / Rate;
      Q.Arrival = T;
    }
    Released = Requests;
  } else {
    for (Request &Q : All)
      Q.Arrival = 0;
    int64_t First = Tr.Arrival == ArrivalKind::Concurrency
                        ? std::min<int64_t>(Requests,
                                            (Tr.Clients + Groups - 1) / Groups)
                        : Requests;
    Released = First;
  }

  // With pipeline parallelism the engine keeps one micro-batch a stage in
  // flight (TensorRT-LLM schedules pp micro-batches, vLLM one virtual
  // engine a stage): lanes, each formed by the scheduler as a step is,
  // under max_batch and max_tokens, its sequences its own, the queue and
  // the KV cache shared. A lane's pass through the stages takes its
  // program's time over all the layers; the stages advance together, one
  // tick at a time, each tick as long as the slowest lane's share of a
  // stage (its pass over pp: equal stages), and a lane formed at a tick
  // gives its tokens pp ticks later. One lane: one step a tick, as
  // without pipelining.
  struct Lane {
    std::vector<int64_t> Running;    ///< prefilled, generating
    std::vector<int64_t> Prefilling; ///< reading their prompt (chunked)
    /// The generating sequences' contexts, summed as they change (whole
    /// tokens: exact).
    double RunningContext = 0;
    /// The micro-batch in flight: whether it ran prompts only, the prompt
    /// chunks it read, its sequences and its share of a tick.
    bool InFlight = false, PromptsOnly = false;
    std::vector<std::pair<int64_t, int64_t>> Chunks; // request, tokens
    int64_t InStep = 0;
    double Tick = 0;
  };
  const int64_t Stages = std::max<int64_t>(1, S.Mapping.Pp);
  // A rank of the group: its queue, its lanes and the KV cache blocks its
  // requests hold.
  struct Rank {
    std::deque<int64_t> Waiting;
    std::vector<Lane> Lanes;
    int64_t Reserved = 0;
  };
  std::vector<Rank> Ranks(static_cast<size_t>(Lockstep));
  for (Rank &Rk : Ranks)
    Rk.Lanes.resize(static_cast<size_t>(Stages));
  int64_t Ticks = 0;
  int64_t Next = 0;             // next request to arrive
  int64_t Done = 0, PeakBatch = 0, Steps = 0;
  double SequenceSteps = 0; ///< the steps' sequences, summed
  double HostTime = 0;      ///< the host time between steps they added
  int64_t Preemptions = 0, Admissions = 0;
  double PeakReserved = 0, BatchTime = 0;
  double Now = 0;
  double DataEnergy = 0; ///< moving data, a replica's devices, all steps
  double Activity = 0;   ///< all their activity (-1: an input missing)
  std::vector<double> Ttft, Tpot, E2E;
  Ttft.reserve(All.size());
  Tpot.reserve(All.size());
  E2E.reserve(All.size());

  double OutputTokens = 0;
  auto Complete = [&](int64_t I) {
    Request &Q = All[size_t(I)];
    Q.Done = Now;
    E2E.push_back(Now - Q.Arrival);
    if (Q.Output > 1 && !Tr.PrefillOnly)
      Tpot.push_back((Now - Q.FirstToken) / double(Q.Output - 1));
    Ranks[size_t(Q.Rank)].Reserved -= Q.Blocks;
    Q.Blocks = 0;
    OutputTokens += double(Q.Output);
    ++Done;
    // A client sends its next request when one completes.
    if (Tr.Arrival == ArrivalKind::Concurrency && Released < Requests)
      All[size_t(Released++)].Arrival = Now;
  };

  // (A lane's Prefilling: its admitted requests still reading their
  // prompt, chunked prefill only: otherwise a prompt is read whole in the
  // step that admits it; oldest first.)
  const double L0 = double(std::max<int64_t>(1, Prompt));
  // The blocks a request takes when admitted: its whole prompt and output
  // (reserve), or what its prefill writes and the slot of the token it
  // gives (on demand).
  // (A prefill pool's engine holds a prompt's cache until it is sent.)
  auto AdmitBlocks = [&](const Request &Q) {
    return Tr.OnDemand || Tr.PrefillOnly ? BlocksFor(Q.ReadLen + 1)
                                         : BlocksFor(Q.Prompt + Q.Output);
  };
  // On demand: a preempted request gives its blocks back and waits at the
  // head of the queue to recompute its prompt and the tokens it generated.
  // (Generating: its place in Running; reading its prompt: in Prefilling.)
  auto Preempt = [&](Lane &L, std::vector<int64_t> &From,
                     std::vector<int64_t>::iterator At) {
    int64_t I = *At;
    Request &Q = All[size_t(I)];
    Rank &Rk = Ranks[size_t(Q.Rank)];
    Rk.Reserved -= Q.Blocks;
    Q.Blocks = 0;
    if (&From == &L.Running)
      L.RunningContext -= double(Q.Context);
    From.erase(At);
    Q.Context = 0;
    Q.ReadLen = Q.Started ? Q.Prompt + Q.Generated : Q.Prompt;
    Rk.Waiting.push_front(I);
    ++Preemptions;
  };
  // A lane's pass done: each generating sequence adds a token; a prompt
  // read to its end gives its request's first token.
  auto finishPass = [&](Lane &L) {
    // Generating sequences each add a token (on demand, into the block
    // taken when the lane was formed).
    std::vector<int64_t> Still;
    Still.reserve(L.Running.size() + L.Chunks.size());
    double Context = L.RunningContext;
    for (int64_t I : L.Running) {
      Request &Q = All[size_t(I)];
      if (L.PromptsOnly) {
        Still.push_back(I);
        continue;
      }
      ++Q.Generated;
      ++Q.Context;
      Context += 1;
      if (Q.Generated >= Q.Output) {
        Context -= double(Q.Context);
        Complete(I);
      } else {
        Still.push_back(I);
      }
    }
    L.RunningContext = Context;
    // A prompt read to its end gives the request's first token.
    for (auto [I, C] : L.Chunks) {
      Request &Q = All[size_t(I)];
      Q.Context += C;
      if (Q.Context < Q.ReadLen)
        continue;
      L.Prefilling.erase(std::find(L.Prefilling.begin(), L.Prefilling.end(), I));
      // A preempted request's recomputation gives its next token.
      if (Q.Started) {
        ++Q.Generated;
      } else {
        Q.Started = true;
        Q.FirstToken = Now;
        Q.Generated = 1;
        Ttft.push_back(Now - Q.Arrival);
      }
      Q.Context = Q.ReadLen + 1;
      if (Q.Generated >= Q.Output || Tr.PrefillOnly) {
        Complete(I);
      } else {
        Still.push_back(I);
        L.RunningContext += double(Q.Context);
      }
    }
    L.Running.swap(Still);
  };
  auto Idle = [&](const Lane &L) {
    return !L.InFlight && L.Running.empty() && L.Prefilling.empty();
  };
  auto LanesIdle = [&](const Rank &Rk) {
    return std::all_of(Rk.Lanes.begin(), Rk.Lanes.end(), Idle);
  };
  auto RankIdle = [&](const Rank &Rk) {
    return Rk.Waiting.empty() && LanesIdle(Rk);
  };
  while (Done < Requests) {
    while (Next < Released && All[size_t(Next)].Arrival <= Now) {
      Ranks[size_t(All[size_t(Next)].Rank)].Waiting.push_back(Next);
      ++Next;
    }
    if (std::all_of(Ranks.begin(), Ranks.end(), RankIdle)) {
      // Idle until the next arrival.
      if (Next < Released)
        Now = All[size_t(Next)].Arrival;
      continue;
    }
    // Each rank forms its lane of this tick.
    for (Rank &Rk : Ranks) {
      std::deque<int64_t> &Waiting = Rk.Waiting;
      int64_t &Reserved = Rk.Reserved;
      Lane &L = Rk.Lanes[size_t(Ticks % Stages)];
      std::vector<int64_t> &Running = L.Running, &Prefilling = L.Prefilling;
      double &RunningContext = L.RunningContext;
      // One token of each generating sequence, then prompt tokens while the
      // step's budget lasts: first the prompts under way, then new requests
      // while a slot, the budget and the cache allow (first come, first
      // served: the head of the queue waits for room).
      // Prefill first: while prompt work can run, a step runs prompts only
      // and the generating sequences wait.
      bool PromptsOnly = false;
      if (Tr.PrefillFirst) {
        PromptsOnly = !Prefilling.empty();
        if (!PromptsOnly && !Waiting.empty() &&
            int64_t(Running.size()) < Tr.MaxBatch) {
          const Request &Q = All[size_t(Waiting.front())];
          PromptsOnly = Reserved + AdmitBlocks(Q) <= KvBlocks &&
                        (Tr.ChunkedPrefill || Q.ReadLen <= Tr.MaxTokens);
        }
      }
      // On demand: the generating sequences whose next token starts a block
      // need one this step; while too few are free, the latest admitted
      // sequences are preempted (vLLM preempts from the back of its running
      // queue).
      int64_t Growing = 0;
      if (Tr.OnDemand && !PromptsOnly) {
        auto Needs = [&](int64_t I) {
          const Request &Q = All[size_t(I)];
          return Q.Context + 1 > Q.Blocks * BlockTokens;
        };
        Growing = std::count_if(Running.begin(), Running.end(), Needs);
        auto ByAdmission = [&](int64_t A, int64_t B) {
          return All[size_t(A)].Admitted < All[size_t(B)].Admitted;
        };
        while (Growing > KvBlocks - Reserved &&
               !(Running.empty() && Prefilling.empty())) {
          auto R = std::max_element(Running.begin(), Running.end(), ByAdmission);
          auto F = std::max_element(Prefilling.begin(), Prefilling.end(),
                                    ByAdmission);
          bool FromRunning = F == Prefilling.end() ||
                             (R != Running.end() && ByAdmission(*F, *R));
          if (FromRunning) {
            Growing -= Needs(*R);
            Preempt(L, Running, R);
          } else {
            Preempt(L, Prefilling, F);
          }
        }
      }
      // The blocks they need are taken now, before the other lanes form.
      if (Growing > 0)
        for (int64_t I : Running) {
          Request &Q = All[size_t(I)];
          if (Q.Context + 1 > Q.Blocks * BlockTokens) {
            ++Q.Blocks;
            ++Reserved;
          }
        }
      int64_t D = PromptsOnly ? 0 : int64_t(Running.size());
      int64_t Budget = Tr.MaxTokens - D;
      int64_t PromptTokens = 0;
      double Attention = 0, AttentionEnergy = 0;
      std::vector<std::pair<int64_t, int64_t>> &Chunks = L.Chunks;
      Chunks.clear();
      // A chunk of c prompt tokens after o already read: its share of the
      // causal attention products, c (2 o + c) of the prompt's L^2, and of
      // the fused kernel's per-block cost, c of its L.
      auto Read = [&](int64_t I, int64_t C) {
        Request &Q = All[size_t(I)];
        double Share = double(C) * double(2 * Q.Context + C) / (L0 * L0);
        Attention += PrefillAttention * Share +
                     PrefillAttentionBlocks * double(C) / L0;
        AttentionEnergy += PrefillAttentionEnergy * Share;
        PromptTokens += C;
        Budget -= C;
        Chunks.push_back({I, C});
      };
      for (int64_t I : Prefilling) {
        if (Budget <= 0)
          break;
        const Request &Q = All[size_t(I)];
        Read(I, std::min(Budget, Q.ReadLen - Q.Context));
      }
      int64_t Slots = int64_t(Running.size() + Prefilling.size());
      while (!Waiting.empty() && Slots < Tr.MaxBatch && Budget > 0) {
        Request &Q = All[size_t(Waiting.front())];
        // The prefix cache holds the first part of the prompt already (a
        // decode pool's, all of it but its last token: the first token the
        // prefill pool gave; a preempted one's, nothing: it recomputes).
        int64_t Cached =
            Tr.Prefilled && Q.ReadLen <= Q.Prompt
                ? Q.Prompt - 1
                : std::min<int64_t>(Q.Prompt - 1,
                                    int64_t(std::floor(Tr.PrefixHit *
                                                       double(Q.Prompt))));
        int64_t ToRead = Q.ReadLen - Cached;
        // (Without chunked prefill a preempted request's recomputation, its
        // prompt and generated tokens, may exceed the budget: it runs as the
        // step's only prompt.)
        bool Resumed = Q.ReadLen > Q.Prompt;
        bool Whole = !Tr.ChunkedPrefill &&
                     (ToRead <= Budget || (Resumed && PromptTokens == 0));
        if ((!Tr.ChunkedPrefill && !Whole) ||
            Reserved + AdmitBlocks(Q) > KvBlocks)
          break;
        int64_t I = Waiting.front();
        Waiting.pop_front();
        Q.Blocks = AdmitBlocks(Q);
        Q.Admitted = Admissions++;
        Reserved += Q.Blocks;
        ++Slots;
        Q.Context = Cached;
        Prefilling.push_back(I);
        Read(I, Whole ? ToRead : std::min(Budget, ToRead));
      }
      double Context = PromptsOnly ? 0 : RunningContext;
      // The head projects the positions that give a token: one a generating
      // sequence, the last of a prompt read to its end (the engines gather
      // those rows before it: TensorRT-LLM's gather_last_token_logits,
      // vLLM's logits processor).
      int64_t Logits = D;
      for (auto [I, C] : Chunks)
        Logits += All[size_t(I)].Context + C >= All[size_t(I)].ReadLen;
      // (One look-up a batch: a decode-only step has T = d = s.)
      const int64_t T = D + PromptTokens;
      const StepCost AtT = Cost.at(T);
      const StepCost AtD = D == T ? AtT : Cost.at(D);
      double Head = Logits <= 0   ? 0
                    : Logits == T ? AtT.Head
                    : Logits == D ? AtD.Head
                                  : Cost.at(Logits).Head;
      // (The generating sequences' mean context is Context / d.)
      auto PerContext = [&](double X) {
        return D > 0 ? X * Context / double(D) : 0;
      };
      double Step = AtT.Dense - AtT.Head + Head + PerContext(AtD.PerContext) +
                    Attention;
      if (!Cost.ok())
        return false;
      L.InStep = D + int64_t(Chunks.size());
      // (A lane with nothing to run runs nothing: no step, no energy.)
      if (L.InStep > 0) {
        // The engine's host time between steps, which the devices do not
        // overlap (step_overhead, sequence_overhead).
        const double Host = S.Mapping.StepOverhead +
                            S.Mapping.SequenceOverhead * double(L.InStep);
        Step += Host;
        HostTime += Host / double(Stages);
        DataEnergy += AtT.Energy + PerContext(AtD.EnergyPerContext);
      }
      // The head's activity where a token comes out, as its time.
      double HeadActivity = Logits <= 0   ? 0
                            : Logits == T ? AtT.HeadActivity
                            : Logits == D ? AtD.HeadActivity
                                          : Cost.at(Logits).HeadActivity;
      if (Activity >= 0 && L.InStep > 0)
        Activity = AtT.Activity < 0 || PrefillAttentionEnergy < 0
                       ? -1
                       : Activity + AtT.Activity - AtT.HeadActivity +
                             HeadActivity + PerContext(AtD.ActivityPerContext) +
                             AttentionEnergy;
      L.PromptsOnly = PromptsOnly;
      L.InFlight = L.InStep > 0;
      L.Tick = L.InFlight ? Step / double(Stages) : 0;
      Steps += L.InFlight;
      SequenceSteps += L.InStep;
      PeakBatch = std::max(PeakBatch, L.InStep);
      PeakReserved = std::max(PeakReserved, double(Reserved));
    }
    // The tick: the slowest lane's share of a stage, over the group's
    // ranks.
    double Tick = 0, InFlight = 0;
    for (const Rank &Rk : Ranks)
      for (const Lane &K : Rk.Lanes)
        if (K.InFlight) {
          Tick = std::max(Tick, K.Tick);
          InFlight += double(K.InStep);
        }
    if (Tick <= 0 && std::all_of(Ranks.begin(), Ranks.end(), LanesIdle)) {
      // Nothing admitted and nothing under way: Sema and the KV check
      // above let every request in on an empty engine.
      assert(false && "a request the engine can never admit");
      return false;
    }
    Now += Tick;
    BatchTime += Tick * InFlight / double(Stages * Lockstep);
    // The lanes formed pp - 1 ticks ago complete their pass (with one
    // stage, this tick's).
    ++Ticks;
    for (Rank &Rk : Ranks) {
      Lane &Out = Rk.Lanes[size_t(Ticks % Stages)];
      if (!Out.InFlight)
        continue;
      Out.InFlight = false;
      finishPass(Out);
    }
  }

  if (Times) {
    Times->clear();
    for (const Request &Q : All)
      Times->push_back({Q.Arrival, Q.FirstToken, Q.Done, Q.Prompt, Q.Output});
  }
  TrafficReport &T = R.Traffic;
  T.Simulated = true;
  T.Requests = Requests * Groups;
  T.Steps = Steps;
  T.SequenceSteps = SequenceSteps;
  T.HostTime = HostTime;
  // Every request at once, one lane and one rank: no step waits for a
  // time, so the steps are the same whatever they take and the run lasts
  // their sum.
  T.StepsFixed = Tr.Arrival == ArrivalKind::Offline && Stages == 1 &&
                 Lockstep == 1 && !Tr.Prefilled && !Tr.PrefillOnly;
  // From the first arrival (the arrivals are in order).
  double Start = All.empty() ? 0 : All.front().Arrival;
  T.Duration = Now - Start;
  T.RequestRate = T.Duration > 0 ? double(Requests * Groups) / T.Duration : 0;
  T.MeanBatch = Now > 0 ? BatchTime / Now : 0;
  T.PeakBatch = PeakBatch;
  T.KvTokens = KvTokens;
  T.PeakKvTokens = PeakReserved * double(BlockTokens);
  T.Preemptions = Preemptions;
  T.MeanPrompt = SumPrompt / double(std::max<int64_t>(1, Requests));
  T.MeanOutput = SumOutput / double(std::max<int64_t>(1, Requests));
  T.Ttft = percentiles(std::move(Ttft));
  T.Tpot = percentiles(std::move(Tpot));
  T.E2E = percentiles(std::move(E2E));

  // The scenario's figures: means over the requests, throughput over the
  // run.
  R.Ttft = T.Ttft.Mean;
  R.Tpot = T.Tpot.Mean;
  R.E2E = T.E2E.Mean;
  R.Throughput = T.Duration > 0 ? OutputTokens * double(Groups) / T.Duration : 0;
  R.ThroughputPerDevice =
      R.Throughput / double(R.Replicas * R.DevicesPerReplica);
  // Activity: each step's, the prompts' attention and the LM head where
  // a token comes out included, over the replica's output tokens; static
  // power over the run, idle stretches between arrivals included. (The
  // data-movement figure keeps each step's dense part only.)
  T.DataEnergy = DataEnergy;
  T.Activity = Activity;
  R.DataEnergyPerToken = OutputTokens > 0 ? DataEnergy / OutputTokens : 0;
  chargeServing(R, S, System,
                OutputTokens > 0 && Activity >= 0 ? Activity / OutputTokens
                                                  : -1);
  R.Memory.KVCache = PeakReserved * double(BlockTokens) * PerToken;
  R.Memory.Activations = Activations;
  R.MaxBatch =
      std::min<int64_t>(Tr.MaxBatch, KvBlocks / BlocksFor(Prompt + Output));
  checkSlos(R, S);
  return true;
}

/// The goodput of S's requests run by Simulate (the requests to run, the
/// report to fill), as setGoodput describes.
static void goodput(
    const ScenarioConfig &S, ServingReport &R, const ServingReport &Static,
    const std::function<bool(const TrafficConfig &, ServingReport &)> &Simulate) {
  if (!R.Traffic.Simulated || (!S.SloTtft && !S.SloTpot && !S.SloE2E))
    return;
  TrafficConfig T = S.Traffic;
  auto Met = [&](double Rate) {
    T.Arrival = ArrivalKind::Poisson;
    T.Rate = Rate;
    ServingReport Run = Static;
    if (!Simulate(T, Run))
      return false;
    const TrafficReport &X = Run.Traffic;
    return (!S.SloTtft || X.Ttft.P99 <= S.SloTtft) &&
           (!S.SloTpot || X.Tpot.P99 <= S.SloTpot) &&
           (!S.SloE2E || X.E2E.P99 <= S.SloE2E);
  };
  // Capacity: the rate all requests at once are served at.
  TrafficConfig Offline = S.Traffic;
  Offline.Arrival = ArrivalKind::Offline;
  ServingReport Full = Static;
  if (!Simulate(Offline, Full))
    return;
  double Hi = 2 * Full.Traffic.RequestRate, Lo = Hi / 1024;
  if (!(Hi > 0) || !Met(Lo)) {
    R.Traffic.Goodput = 0;
    return;
  }
  if (Met(Hi)) {
    R.Traffic.Goodput = Hi;
    return;
  }
  // Geometric bisection to 1%.
  while (Hi / Lo > 1.01) {
    double Mid = std::sqrt(Lo * Hi);
    (Met(Mid) ? Lo : Hi) = Mid;
  }
  R.Traffic.Goodput = Lo;
}

void setGoodput(const Program &P, const ProgramAtBatch &AtBatch,
                ServingReport &R, const ServingReport &Static) {
  goodput(P.Scenario, R, Static,
          [&](const TrafficConfig &T, ServingReport &Run) {
    return simulateTraffic(P, AtBatch, Run, nullptr, nullptr, &T);
  });
}

void setGoodput(const Program &Prefill, const ProgramAtBatch &AtPrefill,
                const ServingReport &RP, const Program &Decode,
                const ProgramAtBatch &AtDecode, ServingReport &R,
                const ServingReport &Static) {
  goodput(Decode.Scenario, R, Static,
          [&](const TrafficConfig &T, ServingReport &Run) {
    ServingReport Pool = RP;
    return simulateDisaggregated(Prefill, AtPrefill, Pool, Decode, AtDecode,
                                 Run, nullptr, &T);
  });
}

bool simulateDisaggregated(const Program &Prefill,
                           const ProgramAtBatch &AtPrefill, ServingReport &RP,
                           const Program &Decode,
                           const ProgramAtBatch &AtDecode, ServingReport &R,
                           DiagnosticEngine *Diags,
                           const TrafficConfig *Traffic,
                           const SystemConfig *On) {
  const ScenarioConfig &S = Decode.Scenario;
  const TrafficConfig &Asked = Traffic ? *Traffic : S.Traffic;
  const SystemConfig &Sys = On ? *On : S.System;
  const MappingConfig &MP = Prefill.Scenario.Mapping, &MD = S.Mapping;
  // The prefill pool: each request ends with its first token.
  TrafficConfig First = Asked;
  First.PrefillOnly = true;
  std::vector<RequestTimes> Read;
  if (!simulateTraffic(Prefill, AtPrefill, RP, Diags, On, &First, &Read))
    return false;

  // A prompt's cache crosses to the decode pool: each prefill device sends
  // its share in parallel with the others, as many lanes as the narrower
  // pool's tensor-parallel group, over the node's fabric when both pools
  // fit in one node and the fabric between nodes otherwise.
  const int64_t Used = MP.devices() + MD.devices();
  bool OneNode = Used <= Sys.DevicesPerNode || !Sys.ScaleOut.present();
  const NetworkConfig &Net = OneNode ? Sys.ScaleUp : Sys.ScaleOut;
  double Lanes = double(std::max<int64_t>(1, std::min(MP.Tp, MD.Tp)));
  double Bandwidth = Net.Bandwidth * Net.Efficiency * Lanes;
  double PerToken = kvCacheBytesPerTokenOfModel(Prefill); // the sender's
  auto Transfer = [&](int64_t Prompt) {
    return Bandwidth > 0 ? double(Prompt) * PerToken / Bandwidth + Net.Latency
                         : 0;
  };

  // Every prefill engine gives what the simulated one gave (its request i
  // stands for request i dp + r of engine r, up to the requests asked);
  // the decode engines take the prompts in the order their caches
  // arrive, each every dp-th.
  const int64_t PrefillReplicas = std::max<int64_t>(1, MP.Dp);
  struct Ready {
    double At;
    size_t Request;
  };
  std::vector<Ready> Stream;
  std::vector<double> Ttft, Tpot, E2E;
  double Moving = 0, MovedBytes = 0;
  for (size_t I = 0; I < Read.size(); ++I) {
    const RequestTimes &Q = Read[I];
    Ttft.push_back(Q.FirstToken - Q.Arrival);
    if (Q.Output <= 1)
      E2E.push_back(Q.FirstToken - Q.Arrival);
    double Move = Transfer(Read[I].Prompt);
    Moving += Move;
    double At = Read[I].FirstToken + Move;
    for (int64_t Copy = 0; Copy < PrefillReplicas; ++Copy)
      if (int64_t(I) * PrefillReplicas + Copy < First.Requests) {
        Stream.push_back({At, I});
        MovedBytes += double(Read[I].Prompt) * PerToken;
      }
  }
  std::stable_sort(Stream.begin(), Stream.end(),
                   [](const Ready &A, const Ready &B) { return A.At < B.At; });
  // The decode pool reads each prompt's last position (the first token)
  // against the cache it received and generates the rest. A request of
  // one output token is done with the prefill. Tokens: those of every
  // request served.
  auto Rows = std::make_shared<std::vector<spec::TraceRequest>>();
  std::vector<size_t> FromRow;
  double Start = Read.empty() ? 0 : Read.front().Arrival;
  double End = 0, Tokens = 0;
  for (const Ready &E : Stream) {
    const RequestTimes &Q = Read[E.Request];
    Tokens += double(Q.Output);
    if (Q.Output <= 1) {
      End = std::max(End, Q.FirstToken);
      continue;
    }
    Rows->push_back({Q.Prompt + 1, Q.Output - 1, E.At});
    FromRow.push_back(E.Request);
  }
  const int64_t DecodeReplicas = std::max<int64_t>(1, MD.Dp);
  // (Without a request to decode, the engine figures are the prefill
  // pool's.)
  TrafficReport Pool = RP.Traffic;
  // Each simulated engine stands for its pool's share of the requests: its
  // energy scales by the requests served over those it ran.
  double PoolShare = 0;
  if (!Rows->empty()) {
    TrafficConfig Rest = Asked;
    Rest.Prefilled = true;
    Rest.Trace = Rows;
    Rest.Arrival = ArrivalKind::Trace;
    Rest.Requests = int64_t(Rows->size());
    std::vector<RequestTimes> Gen;
    if (!simulateTraffic(Decode, AtDecode, R, Diags, On, &Rest, &Gen))
      return false;
    Pool = R.Traffic;
    // Row j * dp of the stream is the decode engine's request j.
    for (size_t J = 0; J < Gen.size(); ++J) {
      size_t Row = std::min(Rows->size() - 1, J * size_t(DecodeReplicas));
      const RequestTimes &Q = Read[FromRow[Row]];
      E2E.push_back(Gen[J].Done - Q.Arrival);
      Tpot.push_back((Gen[J].Done - Q.FirstToken) / double(Q.Output - 1));
      End = std::max(End, Gen[J].Done);
    }
    PoolShare = Gen.empty() ? 0 : double(Rows->size()) / double(Gen.size());
  }

  TrafficReport &T = R.Traffic;
  T = Pool;
  T.Simulated = true;
  T.Requests = int64_t(Stream.size());
  T.Duration = End - Start;
  T.RequestRate = T.Duration > 0 ? double(T.Requests) / T.Duration : 0;
  T.MeanPrompt = RP.Traffic.MeanPrompt;
  T.MeanOutput = RP.Traffic.MeanOutput;
  T.Ttft = percentiles(std::move(Ttft));
  T.Tpot = percentiles(std::move(Tpot));
  T.E2E = percentiles(std::move(E2E));
  T.PrefillEngines = PrefillReplicas;
  T.MeanKvTransfer = Read.empty() ? 0 : Moving / double(Read.size());
  R.Ttft = T.Ttft.Mean;
  R.Tpot = T.Tpot.Mean;
  R.E2E = T.E2E.Mean;
  R.Throughput = T.Duration > 0 ? Tokens / T.Duration : 0;
  R.ThroughputPerDevice = R.Throughput / double(Used);
  // Energy and cost: both pools' engines' activity (each simulated
  // engine's, scaled by the requests its pool served over those it ran)
  // over the tokens served, and every used device's static power over the
  // run.
  R.EnergyPerToken = R.TdpEnergyPerToken = R.PowerPerDevice = 0;
  R.DataEnergyPerToken = R.CostPerToken = 0;
  R.CostAtTdp = false;
  if (R.Throughput > 0 && Tokens > 0) {
    const TrafficReport &PT = RP.Traffic;
    double Engines = Read.empty() ? 0 : double(Stream.size()) / double(Read.size());
    double Decoders = PoolShare;
    bool Decoded = !Rows->empty();
    // The caches' bytes on the wire between the pools (an energy_per_bit
    // missing: data and activity not computed, as for a collective).
    bool Wire = Net.EnergyPerByte > 0;
    double Moved = MovedBytes * Net.EnergyPerByte;
    double Data = PT.DataEnergy * Engines +
                  (Decoded ? Pool.DataEnergy : 0) * Decoders + Moved;
    double Activity =
        PT.Activity < 0 || (Decoded && Pool.Activity < 0) || !Wire
            ? -1
            : (PT.Activity * Engines +
               (Decoded ? Pool.Activity : 0) * Decoders + Moved) /
                  Tokens;
    R.DataEnergyPerToken = Wire && PT.DataEnergy > 0 ? Data / Tokens : 0;
    chargeServing(R, S, Sys, Activity);
  }
  R.Slo.clear();
  checkSlos(R, S);
  return true;
}

} // namespace cost
} // namespace llmsys

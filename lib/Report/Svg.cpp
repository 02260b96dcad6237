//===- Svg.cpp - figures as standalone SVG files ------------------------------===//
//
// `--plot DIR`: the roofline with each operator placed on it, the step's
// time breakdown, memory per device against capacity, and a sweep's Pareto
// front. Plain SVG 1.1 with axes, units, labels and a legend, readable in
// any browser; byte-identical from run to run.
//
//===----------------------------------------------------------------------===//

#include "Report/Svg.h"

#include "Report/Format.h"
#include "Report/Report.h"
#include "Report/SweepReport.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

using namespace llvm;

namespace llmsys {
namespace report {

namespace {

constexpr double W = 720, H = 440;
constexpr double Left = 90, Right = 200, Top = 50, Bottom = 60;

/// Colours of the series (a qualitative palette that prints in grey too).
const char *const Palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                               "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                               "#9c755f", "#bab0ac"};

std::string num(double X) { return fmt::format("{:.1f}", X); }

/// A tick of a logarithmic axis: "1", "10", "100 m", "1 k".
std::string tick(double V, StringRef Unit) {
  std::string S = si(V, Unit, 1);
  return StringRef(S).rtrim().str();
}

class Canvas {
public:
  explicit Canvas(StringRef Title) : Title(Title.str()) {}
  void line(double X1, double Y1, double X2, double Y2, StringRef Stroke,
            double Width = 1, StringRef Dash = "") {
    Body += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                        "stroke=\"{}\" stroke-width=\"{}\"{}/>\n",
                        num(X1), num(Y1), num(X2), num(Y2), Stroke.str(),
                        Width,
                        Dash.empty() ? std::string()
                                     : " stroke-dasharray=\"" + Dash.str() + "\"");
  }
  void rect(double X, double Y, double Wd, double Ht, StringRef Fill,
            StringRef Tip = "") {
    Body += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                        "fill=\"{}\">{}</rect>\n",
                        num(X), num(Y), num(std::max(0.0, Wd)),
                        num(std::max(0.0, Ht)), Fill.str(),
                        Tip.empty() ? "" : "<title>" + markupText(Tip) + "</title>");
  }
  void circle(double X, double Y, double R, StringRef Fill, StringRef Tip) {
    Body += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" "
                        "fill-opacity=\"0.85\" stroke=\"#333\" "
                        "stroke-width=\"0.5\"><title>{}</title></circle>\n",
                        num(X), num(Y), num(R), Fill.str(), markupText(Tip));
  }
  void text(double X, double Y, StringRef S, StringRef Anchor = "start",
            double Size = 12, StringRef Extra = "") {
    Body += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" "
                        "text-anchor=\"{}\"{}>{}</text>\n",
                        num(X), num(Y), Size, Anchor.str(),
                        Extra.empty() ? std::string() : " " + Extra.str(),
                        markupText(S));
  }
  void polyline(ArrayRef<std::pair<double, double>> Pts, StringRef Stroke,
                double Width) {
    std::string P;
    for (const auto &[X, Y] : Pts)
      P += (P.empty() ? "" : " ") + num(X) + "," + num(Y);
    Body += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                        "stroke-width=\"{}\"/>\n",
                        P, Stroke.str(), Width);
  }
  /// The panel right of the plot: coloured keys, then notes, each label
  /// wrapped to the panel's width (test/Driver/check-svg.py checks that no
  /// text is clipped or overlaps).
  void legend(ArrayRef<std::pair<std::string, std::string>> Items) {
    for (const auto &[Label, Colour] : Items) {
      rect(W - Right + 20, PanelY - 10, 12, 12, Colour);
      wrapped(W - Right + 38, Label, 11);
    }
  }
  void note(StringRef Text, double Size = 10) {
    wrapped(W - Right + 20, Text, Size);
  }
  void gap() { PanelY += 8; }
  std::string str() const {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
        "height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\">\n"
        "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
        "<text x=\"{2}\" y=\"28\" font-size=\"{5}\" font-weight=\"bold\">{3}"
        "</text>\n{4}</svg>\n",
        W, H, Left, markupText(Title), Body,
        // A long title gets a smaller font rather than being cut off.
        num(std::max(9.0, std::min(15.0, (W - Left - 10) /
                                              (0.66 * Title.size())))));
  }

private:
  /// Lines of at most what fits from X to the canvas' right edge.
  void wrapped(double X, StringRef Text, double Size) {
    size_t Max = size_t((W - 6 - X) / (0.58 * Size));
    std::string Line;
    auto Flush = [&] {
      text(X, PanelY, Line, "start", Size);
      PanelY += Size + 5;
      Line.clear();
    };
    SmallVector<StringRef, 8> Words;
    Text.split(Words, ' ', -1, /*KeepEmpty=*/false);
    // Characters, not bytes (a no-break space is two).
    auto Chars = [](StringRef T) {
      return size_t(count_if(T, [](char C) { return (C & 0xC0) != 0x80; }));
    };
    for (StringRef Wd : Words) {
      if (!Line.empty() && Chars(Line) + 1 + Chars(Wd) > Max)
        Flush();
      Line += (Line.empty() ? "" : " ") + Wd.str();
    }
    if (!Line.empty())
      Flush();
    PanelY += 3;
  }

  std::string Title;
  std::string Body;
  double PanelY = Top + 10;
};

/// A logarithmic axis over whole decades covering [Lo, Hi].
struct LogAxis {
  double Lo, Hi;   ///< decades
  double P0, P1;   ///< pixels
  LogAxis(double Min, double Max, double P0, double P1) : P0(P0), P1(P1) {
    // Only positive, finite bounds make a log axis; anything else (a peak
    // or bandwidth of 0) falls back to one decade around what is valid.
    bool MinOk = Min > 0 && std::isfinite(Min);
    bool MaxOk = Max > 0 && std::isfinite(Max);
    if (!MinOk && !MaxOk)
      Min = 1, Max = 10;
    else if (!MinOk)
      Min = Max / 10;
    else if (!MaxOk)
      Max = Min * 10;
    Lo = std::floor(std::log10(Min));
    Hi = std::ceil(std::log10(Max));
    if (Hi <= Lo)
      Hi = Lo + 1;
    // At most 12 decades: ticks stay readable and loops bounded.
    Lo = std::max(Lo, Hi - 12);
  }
  double at(double V) const {
    return P0 + (std::log10(V) - Lo) / (Hi - Lo) * (P1 - P0);
  }
};

/// A linear axis from 0 with a round step.
struct LinAxis {
  double Max, Step, P0, P1;
  LinAxis(double DataMax, double P0, double P1) : P0(P0), P1(P1) {
    double Raw = DataMax > 0 ? DataMax / 5 : 1;
    double Mag = std::pow(10, std::floor(std::log10(Raw)));
    Step = Raw / Mag < 1.5 ? Mag : Raw / Mag < 3.5 ? 2 * Mag
                                  : Raw / Mag < 7.5 ? 5 * Mag
                                                    : 10 * Mag;
    Max = std::ceil(DataMax / Step) * Step;
    if (Max <= 0)
      Max = Step;
  }
  double at(double V) const { return P0 + V / Max * (P1 - P0); }
};

void frame(Canvas &C) {
  C.line(Left, H - Bottom, W - Right, H - Bottom, "#333");
  C.line(Left, Top, Left, H - Bottom, "#333");
}

std::string label(const json::Object &S) {
  return (S.getString("kind").value_or("") + " " +
          S.getString("name").value_or(""))
      .str();
}

} // namespace

std::string plotRoofline(const ir::Program &P, const json::Value &Report) {
  const json::Object &S = *Report.getAsObject();
  const ir::AcceleratorConfig &A = P.Scenario.System.Device;
  double Peak = A.peak(P.Scenario.Mapping.Activations);
  double Bw = A.HbmBandwidth;
  Canvas C("Roofline: " + label(S) + " (per device, " + A.Name + ")");
  struct Pt {
    std::string Name, Phase;
    double I, Rate, Time;
    bool Memory;
  };
  std::vector<Pt> Pts;
  unsigned Skipped = 0;
  if (const json::Array *Ops = S.getArray("operators"))
    for (const json::Value &V : *Ops) {
      const json::Object &O = *V.getAsObject();
      double F = O.getNumber("flops").value_or(0);
      double B = O.getNumber("bytes").value_or(0);
      double T = O.getNumber("time_s").value_or(0);
      if (F <= 0 || B <= 0 || T <= 0) {
        ++Skipped;
        continue;
      }
      Pts.push_back({O.getString("name").value_or("").str(),
                     O.getString("phase").value_or("").str(), F / B, F / T, T,
                     O.getString("bound").value_or("") == "memory"});
    }
  bool Roof = Peak > 0 && Bw > 0;
  double IMin = Roof ? Peak / Bw / 100 : INFINITY;
  double IMax = Roof ? Peak / Bw * 100 : 0;
  double RMin = Roof ? Peak / 1e4 : INFINITY, RMax = Peak;
  for (const Pt &X : Pts) {
    IMin = std::min(IMin, X.I);
    IMax = std::max(IMax, X.I);
    RMin = std::min(RMin, X.Rate);
    RMax = std::max(RMax, X.Rate);
  }
  LogAxis Xa(IMin, IMax, Left, W - Right);
  LogAxis Ya(RMin, RMax * 1.5, H - Bottom, Top);
  frame(C);
  for (double D = Xa.Lo; D <= Xa.Hi; ++D) {
    double X = Xa.at(std::pow(10, D));
    C.line(X, Top, X, H - Bottom, "#ddd", 0.5);
    C.text(X, H - Bottom + 16, tick(std::pow(10, D), ""), "middle", 10);
  }
  for (double D = Ya.Lo; D <= Ya.Hi; ++D) {
    double Y = Ya.at(std::pow(10, D));
    C.line(Left, Y, W - Right, Y, "#ddd", 0.5);
    C.text(Left - 6, Y + 4, tick(std::pow(10, D), ""), "end", 10);
  }
  C.text((Left + W - Right) / 2, H - 18, "arithmetic intensity (FLOP/B)",
         "middle", 12);
  C.text(22, (Top + H - Bottom) / 2, "attained (FLOP/s)", "middle", 12,
         fmt::format("transform=\"rotate(-90 22 {})\"",
                     num((Top + H - Bottom) / 2)));
  if (!Roof) {
    C.text(W - Right - 4, Top + 14,
           "no roof: the device has no peak or no HBM bandwidth", "end", 11);
  }
  // The roof: bandwidth x intensity up to the ridge, then the peak.
  double Ridge = Roof ? Peak / Bw : 1;
  double X0 = std::pow(10, Xa.Lo), X1 = std::pow(10, Xa.Hi);
  std::vector<std::pair<double, double>> RoofLine;
  double YStart = Bw * X0;
  if (Roof && YStart < std::pow(10, Ya.Lo))
    X0 = std::pow(10, Ya.Lo) / Bw, YStart = std::pow(10, Ya.Lo);
  if (Roof) {
    RoofLine.push_back({Xa.at(X0), Ya.at(YStart)});
    RoofLine.push_back({Xa.at(Ridge), Ya.at(Peak)});
    RoofLine.push_back({Xa.at(X1), Ya.at(Peak)});
    C.polyline(RoofLine, "#222", 2);
    // The ridge point, marked; its figures are in the panel.
    C.line(Xa.at(Ridge), Ya.at(Peak) - 5, Xa.at(Ridge), Ya.at(Peak) + 5,
           "#222", 2);
  }
  // The operators, largest time first so small ones stay visible on top.
  std::vector<const Pt *> Order;
  for (const Pt &X : Pts)
    Order.push_back(&X);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const Pt *A, const Pt *B) { return A->Time > B->Time; });
  double TMax = Order.empty() ? 1 : Order.front()->Time;
  for (const Pt *X : Order)
    C.circle(Xa.at(X->I), Ya.at(X->Rate), 3 + 6 * std::sqrt(X->Time / TMax),
             X->Memory ? Palette[1] : Palette[0],
             X->Name + " (" + X->Phase + "): " + si(X->I, "FLOP/B", 3) + ", " +
                 si(X->Rate, "FLOP/s", 3) + ", " + duration(X->Time));
  // The longest operators are numbered by their dots and named in the
  // panel: six in training; in serving the four longest of each phase, so
  // decode's are named beside prefill's. A number that would cover one
  // already placed moves down a line.
  std::vector<const Pt *> Named;
  std::map<std::string, int> PerPhase;
  bool Serving = S.getString("kind").value_or("") == "serve";
  for (const Pt *X : Order)
    if (Named.size() < 8 && (Serving ? PerPhase[X->Phase]++ < 4
                                     : Named.size() < 6))
      Named.push_back(X);
  std::vector<std::pair<double, double>> Placed;
  for (size_t I = 0; I < Named.size(); ++I) {
    double X = std::round(Xa.at(Named[I]->I) + 8);
    double Y = std::round(Ya.at(Named[I]->Rate) - 6);
    for (bool Moved = true; Moved;) {
      Moved = false;
      for (const auto &[PX, PY] : Placed)
        if (std::fabs(PX - X) < 14 && std::fabs(PY - Y) < 11) {
          Y = PY + 11;
          Moved = true;
        }
    }
    Placed.push_back({X, Y});
    C.text(X, Y, std::to_string(I + 1), "start", 9, "font-weight=\"bold\"");
  }
  C.legend({{"compute-bound op", Palette[0]}, {"memory-bound op", Palette[1]}});
  C.note("area: time per step");
  if (Roof) {
    // The format kept on one line: "(fp16 for fp8)".
    std::string Format = computeFormat(P.Scenario.System.Device,
                                       P.Scenario.Mapping.Activations);
    for (size_t At; (At = Format.find(' ')) != std::string::npos;)
      Format.replace(At, 1, "\u00a0");
    C.note("peak " + si(Peak, "FLOP/s", 3) + " (" + Format + ")");
    C.note("ridge " + si(Ridge, "FLOP/B", 3));
    C.note("HBM " + si(Bw, "B/s", 3));
  }
  C.gap();
  // A value and its unit are not split across lines (a no-break space).
  for (size_t I = 0; I < Named.size(); ++I) {
    std::string Time = duration(Named[I]->Time);
    size_t Space = Time.find(' ');
    if (Space != std::string::npos)
      Time.replace(Space, 1, "\u00a0");
    C.note(std::to_string(I + 1) + " " + Named[I]->Name + " (" +
               Named[I]->Phase + ") " + Time,
           9);
  }
  if (Skipped)
    C.note(fmt::format("{} ops without FLOPs", Skipped));
  return C.str();
}

/// One horizontal bar of named parts.
struct Bar {
  std::string Label; ///< left of the bar ("" for a single bar)
  std::vector<std::pair<std::string, double>> Parts;
};

/// Horizontal stacked bars of named parts on one axis, a part's colour the
/// same in every bar, with a legend (a single bar's legend gives each
/// part's value).
static std::string stackedBars(StringRef Title, StringRef Axis,
                               ArrayRef<Bar> Bars, StringRef Unit,
                               double Limit, StringRef LimitLabel) {
  Canvas C(Title);
  auto Show = [&](double V) {
    return Unit == "s" ? duration(V) : si(V, Unit, 3);
  };
  double Longest = Limit;
  for (const Bar &B : Bars) {
    double Total = 0;
    for (const auto &Part : B.Parts)
      Total += std::max(0.0, Part.second);
    Longest = std::max(Longest, Total);
  }
  LinAxis Xa(Longest, Left, W - Right);
  frame(C);
  for (double V = 0; V <= Xa.Max + Xa.Step / 2; V += Xa.Step) {
    double X = Xa.at(V);
    C.line(X, Top, X, H - Bottom, "#ddd", 0.5);
    C.text(X, H - Bottom + 16, Show(V), "middle", 10);
  }
  C.text((Left + W - Right) / 2, H - 18, Axis, "middle", 12);
  std::vector<std::string> Names; // parts in order of first appearance
  for (const Bar &B : Bars)
    for (const auto &Part : B.Parts)
      if (Part.second > 0 && !is_contained(Names, Part.first))
        Names.push_back(Part.first);
  auto Colour = [&](const std::string &Name) {
    return std::string(
        Palette[(find(Names, Name) - Names.begin()) % std::size(Palette)]);
  };
  double Slot = (H - Bottom - Top - 40) / std::max<size_t>(1, Bars.size());
  double Ht = std::min(120.0, Slot - 40);
  std::vector<std::pair<std::string, std::string>> Legend;
  for (size_t I = 0; I < Bars.size(); ++I) {
    const Bar &B = Bars[I];
    double Y = Top + 40 + I * Slot, X = Left, Total = 0;
    for (const auto &[Name, V] : B.Parts) {
      if (V <= 0)
        continue;
      double Wd = Xa.at(V) - Left;
      C.rect(X, Y, Wd, Ht, Colour(Name),
             (B.Label.empty() ? "" : B.Label + ", ") + Name + ": " + Show(V));
      if (Wd > 50)
        C.text(X + Wd / 2, Y + Ht / 2 + 4, Show(V), "middle", 10);
      if (Bars.size() == 1)
        Legend.push_back({Name + " " + Show(V), Colour(Name)});
      X += Wd;
      Total += V;
    }
    C.text(Left, Y - 8,
           (B.Label.empty() ? "total " : B.Label + ": ") + Show(Total),
           "start", 12);
  }
  if (Bars.size() != 1)
    for (const std::string &Name : Names)
      Legend.push_back({Name, Colour(Name)});
  if (Limit > 0) {
    double LX = Xa.at(Limit);
    C.line(LX, Top + 20, LX, H - Bottom, "#c00", 2, "6,4");
    // Beside the line, on the side with room (the panel is to the right).
    bool RightHalf = LX > (Left + W - Right) / 2;
    C.text(RightHalf ? LX - 4 : LX + 4, Top + 14, LimitLabel,
           RightHalf ? "end" : "start", 11, "fill=\"#c00\"");
  }
  C.legend(Legend);
  return C.str();
}

/// A serving phase's time by what bounds each operator (the collectives
/// as interconnect), from the report's tables, scaled to the phase's time.
static std::vector<std::pair<std::string, double>>
phaseParts(const json::Object &S, StringRef Phase, double Time) {
  double Compute = 0, Memory = 0, Comm = 0;
  if (const json::Array *Ops = S.getArray("operators"))
    for (const json::Value &V : *Ops) {
      const json::Object &O = *V.getAsObject();
      if (O.getString("phase").value_or("") != Phase)
        continue;
      double T = O.getNumber("time_s").value_or(0);
      (O.getString("bound").value_or("") == "memory" ? Memory : Compute) += T;
    }
  if (const json::Array *Cs = S.getArray("collectives"))
    for (const json::Value &V : *Cs) {
      const json::Object &O = *V.getAsObject();
      // What a collective adds to the phase: its exposed time (less than
      // its time where tp_overlap runs it inside a GEMM).
      if (O.getString("phase").value_or("") == Phase)
        Comm += O.getNumber("exposed_s")
                    .value_or(O.getNumber("time_s").value_or(0));
    }
  double Sum = Compute + Memory + Comm;
  if (Sum <= 0)
    return {{"other", Time}};
  double K = Time / Sum;
  return {{"compute-bound ops", Compute * K},
          {"memory-bound ops", Memory * K},
          {"communication", Comm * K}};
}

std::string plotTime(const json::Value &Report) {
  const json::Object &S = *Report.getAsObject();
  std::vector<std::pair<std::string, double>> Parts;
  if (const json::Object *B = S.getObject("breakdown")) {
    // Training: the step, as the text report breaks it down.
    static const std::pair<const char *, const char *> Keys[] = {
        {"compute_bound_s", "compute-bound ops"},
        {"memory_bound_s", "memory-bound ops"},
        {"tp_comm_exposed_s", "TP communication"},
        {"cp_comm_exposed_s", "CP communication"},
        {"ep_comm_exposed_s", "EP communication"},
        {"pp_comm_exposed_s", "PP communication"},
        {"dp_comm_exposed_s", "DP communication"},
        {"bubble_s", "pipeline bubble"},
        {"optimizer_s", "optimizer"}};
    for (const auto &[K, Name] : Keys)
      Parts.push_back({Name, B->getNumber(K).value_or(0)});
    return stackedBars("Step time: " + label(S), "time per step",
                       {Bar{"", Parts}}, "s", 0, "");
  }
  // Serving: a request's prefill (the time to first token) and decode
  // (the other tokens), each by what bounds its operators.
  double Ttft = S.getNumber("ttft_s").value_or(0);
  double E2E = S.getNumber("e2e_s").value_or(0);
  return stackedBars("Request latency: " + label(S), "time per request",
                     {Bar{"prefill", phaseParts(S, "prefill", Ttft)},
                      Bar{"decode", phaseParts(S, "decode", E2E - Ttft)}},
                     "s", 0, "");
}

std::string plotMemory(const json::Value &Report) {
  const json::Object &S = *Report.getAsObject();
  const json::Object *M = S.getObject("memory");
  std::vector<std::pair<std::string, double>> Parts;
  static const std::pair<const char *, const char *> Keys[] = {
      {"weights_bytes", "weights"},         {"gradients_bytes", "gradients"},
      {"optimizer_bytes", "optimizer state"}, {"kv_cache_bytes", "KV cache"},
      {"activations_bytes", "activations"}, {"reserved_bytes", "reserved"}};
  for (const auto &[K, Name] : Keys)
    if (M && M->get(K))
      Parts.push_back({Name, M->getNumber(K).value_or(0)});
  double Cap = M ? M->getNumber("capacity_bytes").value_or(0) : 0;
  return stackedBars("Memory per device: " + label(S), "bytes per device",
                     {Bar{"", Parts}}, "B", Cap, "capacity " + si(Cap, "B", 3));
}

std::string plotPareto(const spec::Sweep &Sw, const sweep::Result &R) {
  Canvas C("Pareto front: sweep " + Sw.Decl->Name + " over " +
           Sw.Scenario->Name);
  const std::string &FX = Sw.Objectives[0].first, &FY = Sw.Objectives[1].first;
  size_t IX = find(R.Columns, FX) - R.Columns.begin();
  size_t IY = find(R.Columns, FY) - R.Columns.begin();
  const FigureSpec *SX = Sw.Scenario->Type->findFigure(FX);
  const FigureSpec *SY = Sw.Scenario->Type->findFigure(FY);
  std::vector<std::pair<double, double>> Pts;
  std::vector<const sweep::Point *> Shown;
  for (const sweep::Point &P : R.Kept)
    if (std::isfinite(P.Figures[IX]) && std::isfinite(P.Figures[IY]) &&
        P.Figures[IX] > 0 && P.Figures[IY] > 0) {
      Pts.push_back({P.Figures[IX], P.Figures[IY]});
      Shown.push_back(&P);
    }
  frame(C);
  if (Pts.empty()) {
    C.text(W / 2, H / 2, "no point to plot", "middle", 14);
    return C.str();
  }
  double XMin = Pts[0].first, XMax = XMin, YMin = Pts[0].second, YMax = YMin;
  for (const auto &[X, Y] : Pts) {
    XMin = std::min(XMin, X), XMax = std::max(XMax, X);
    YMin = std::min(YMin, Y), YMax = std::max(YMax, Y);
  }
  LogAxis Xa(XMin / 1.2, XMax * 1.2, Left, W - Right);
  LogAxis Ya(YMin / 1.2, YMax * 1.2, H - Bottom, Top);
  auto Unit = [](const FigureSpec *F) {
    return F->Type.Kind == TypeKind::Quantity ? F->Type.Dim.unitString()
                                              : std::string();
  };
  for (double D = Xa.Lo; D <= Xa.Hi; ++D) {
    double X = Xa.at(std::pow(10, D));
    C.line(X, Top, X, H - Bottom, "#ddd", 0.5);
    C.text(X, H - Bottom + 16, tick(std::pow(10, D), Unit(SX)), "middle", 10);
  }
  for (double D = Ya.Lo; D <= Ya.Hi; ++D) {
    double Y = Ya.at(std::pow(10, D));
    C.line(Left, Y, W - Right, Y, "#ddd", 0.5);
    C.text(Left - 6, Y + 4, tick(std::pow(10, D), Unit(SY)), "end", 10);
  }
  C.text((Left + W - Right) / 2, H - 18,
         FX + (sweep::higherIsBetter(FX) ? " (higher is better)"
                                         : " (lower is better)"),
         "middle", 12);
  C.text(22, (Top + H - Bottom) / 2,
         FY + (sweep::higherIsBetter(FY) ? " (higher is better)"
                                         : " (lower is better)"),
         "middle", 12,
         fmt::format("transform=\"rotate(-90 22 {})\"",
                     num((Top + H - Bottom) / 2)));
  std::vector<std::pair<double, double>> Line;
  for (const auto &[X, Y] : Pts)
    Line.push_back({Xa.at(X), Ya.at(Y)});
  C.polyline(Line, Palette[0], 1.5);
  for (size_t K = 0; K < Shown.size(); ++K) {
    const sweep::Point &P = *Shown[K];
    std::string Tip;
    for (size_t A = 0; A < Sw.Axes.size(); ++A)
      Tip += (Tip.empty() ? "" : ", ") + Sw.Axes[A].Path + " = " +
             spec::formatValue(Sw.Axes[A].Values[P.Choice[A]]);
    Tip += ": " + FX + " " + showFigure(P.Figures[IX], SX->Type) + ", " + FY +
           " " + showFigure(P.Figures[IY], SY->Type);
    C.circle(Line[K].first, Line[K].second, 4, Palette[0], Tip);
  }
  C.legend({{fmt::format("front: {} of {} points", R.Kept.size(), R.Total),
             Palette[0]}});
  return C.str();
}

std::string plotSweep(const spec::Sweep &Sw, const sweep::Result &R,
                      ArrayRef<sweep::Point> Points) {
  const std::string &FY =
      Sw.Objectives.empty() ? R.Columns.front() : Sw.Objectives[0].first;
  bool Higher = sweep::higherIsBetter(FY);
  size_t IY = find(R.Columns, FY) - R.Columns.begin();
  const FigureSpec *SY = Sw.Scenario->Type->findFigure(FY);
  const spec::SweepAxis &Axis = Sw.Axes.front();
  Canvas C("Sweep " + Sw.Decl->Name + ": " + FY + " by " + Axis.Path);
  frame(C);
  double YMax = 0;
  size_t Plotted = 0;
  for (const sweep::Point &P : Points)
    if (IY < P.Figures.size() && std::isfinite(P.Figures[IY])) {
      YMax = std::max(YMax, P.Figures[IY]);
      ++Plotted;
    }
  if (!Plotted) {
    C.text((Left + W - Right) / 2, H / 2, "no point to plot", "middle", 14);
    return C.str();
  }
  LinAxis Ya(YMax, H - Bottom, Top + 10);
  auto ShowY = [&](double V) { return showFigure(V, SY->Type); };
  for (double V = 0; V <= Ya.Max + Ya.Step / 2; V += Ya.Step) {
    double Y = Ya.at(V);
    C.line(Left, Y, W - Right, Y, "#ddd", 0.5);
    C.text(Left - 6, Y + 4, ShowY(V), "end", 10);
  }
  // The axis's values in the sweep's order, evenly spaced.
  size_t N = Axis.Values.size();
  double Slot = (W - Right - Left) / double(N);
  auto XAt = [&](size_t K) { return Left + Slot * (K + 0.5); };
  // Every k-th value labelled, so that the longest fits its room.
  size_t Longest = 1;
  for (const spec::Value &V : Axis.Values)
    Longest = std::max(Longest, spec::formatValue(V).size());
  size_t Every = size_t(std::ceil(N * (Longest * 5.8 + 8) / (W - Right - Left)));
  for (size_t K = 0; K < N; K += std::max<size_t>(1, Every))
    C.text(XAt(K), H - Bottom + 16, spec::formatValue(Axis.Values[K]),
           "middle", 10);
  C.text((Left + W - Right) / 2, H - 18, Axis.Path, "middle", 12);
  C.text(22, (Top + H - Bottom) / 2,
         FY + (Higher ? " (higher is better)" : " (lower is better)"),
         "middle", 12,
         fmt::format("transform=\"rotate(-90 22 {})\"",
                     num((Top + H - Bottom) / 2)));
  std::vector<std::optional<double>> Best(N);
  for (const sweep::Point &P : Points) {
    if (IY >= P.Figures.size() || !std::isfinite(P.Figures[IY]))
      continue;
    double V = P.Figures[IY];
    size_t K = P.Choice.front();
    if (!Best[K] || (Higher ? V > *Best[K] : V < *Best[K]))
      Best[K] = V;
    std::string Tip;
    for (size_t A = 0; A < Sw.Axes.size(); ++A)
      Tip += (Tip.empty() ? "" : ", ") + Sw.Axes[A].Path + " = " +
             spec::formatValue(Sw.Axes[A].Values[P.Choice[A]]);
    C.circle(XAt(K), Ya.at(V), 3.5, Palette[0], Tip + ": " + FY + " " +
                                                    ShowY(V));
  }
  std::vector<std::pair<double, double>> Line;
  for (size_t K = 0; K < N; ++K)
    if (Best[K])
      Line.push_back({XAt(K), Ya.at(*Best[K])});
  if (Line.size() > 1)
    C.polyline(Line, Palette[1], 1.5);
  C.legend({{std::string("a point"), std::string(Palette[0])},
            {"the best at each " + Axis.Path, std::string(Palette[1])}});
  C.note(fmt::format("{} point(s) shown of {} accepted ({} in the grid)",
                     Plotted, R.Accepted, R.Total));
  if (Sw.Axes.size() > 1)
    C.note("the other axes vary within each value");
  return C.str();
}

std::string plotWaterfall(const Chain &Ch) {
  const FigureSpec &F = *Ch.Figure;
  bool Higher = sweep::higherIsBetter(F.Name);
  Canvas C("Chain: " + F.Name + " from " + Ch.Steps.front().Scenario +
           " to " + Ch.Steps.back().Scenario);
  frame(C);
  // The running totals (1 at the first scenario); a step without a value
  // on either side draws no bar.
  size_t N = Ch.Steps.size();
  std::vector<std::optional<double>> Total(N);
  double Lo = 1, Hi = 1;
  for (size_t I = 0; I < N; ++I)
    if ((Total[I] = Ch.totalRatio(I)) && *Total[I] > 0) {
      Lo = std::min(Lo, *Total[I]);
      Hi = std::max(Hi, *Total[I]);
    }
  LogAxis Ya(Lo, Hi, H - Bottom, Top + 18);
  for (double D = Ya.Lo; D <= Ya.Hi; ++D) {
    double Y = Ya.at(std::pow(10, D));
    C.line(Left, Y, W - Right, Y, "#ddd", 0.5);
    C.text(Left - 6, Y + 4, tick(std::pow(10, D), "") + "x", "end", 10);
  }
  C.line(Left, Ya.at(1), W - Right, Ya.at(1), "#999", 1, "4 3");
  // One slot per step after the first, and one for the whole.
  double Slot = (W - Right - Left) / double(N);
  auto XAt = [&](size_t K) { return Left + Slot * (double(K) + 0.2); };
  auto Bar = [&](size_t K, double From, double To, StringRef Colour,
                 const std::string &Tip) {
    double Y0 = Ya.at(From), Y1 = Ya.at(To);
    C.rect(XAt(K), std::min(Y0, Y1), Slot * 0.6,
           std::max(1.0, std::abs(Y1 - Y0)), Colour, Tip);
    C.text(XAt(K) + Slot * 0.3, std::min(Y0, Y1) - 4,
           fmt::format("{:.3g}x", To / From), "middle", 10);
    C.text(XAt(K) + Slot * 0.3, H - Bottom + 16, std::to_string(K + 1),
           "middle", 10);
  };
  for (size_t I = 1; I < N; ++I) {
    if (!Total[I] || !Total[I - 1] || *Total[I] <= 0 || *Total[I - 1] <= 0)
      continue;
    bool Better = (*Total[I] >= *Total[I - 1]) == Higher;
    Bar(I - 1, *Total[I - 1], *Total[I], Better ? Palette[0] : Palette[2],
        Ch.Steps[I - 1].Scenario + " -> " + Ch.Steps[I].Scenario);
  }
  if (Total[N - 1] && *Total[N - 1] > 0)
    Bar(N - 1, 1, *Total[N - 1], Palette[1],
        Ch.Steps.front().Scenario + " -> " + Ch.Steps.back().Scenario);
  C.text((Left + W - Right) / 2, H - 18, "step", "middle", 12);
  C.text(22, (Top + H - Bottom) / 2,
         F.Name + " relative to the first" +
             (Higher ? " (higher is better)" : " (lower is better)"),
         "middle", 12,
         fmt::format("transform=\"rotate(-90 22 {})\"",
                     num((Top + H - Bottom) / 2)));
  C.legend({{"a step that helps", std::string(Palette[0])},
            {"a step that hurts", std::string(Palette[2])},
            {"the whole chain", std::string(Palette[1])}});
  C.gap();
  for (size_t I = 1; I < N; ++I)
    C.note(fmt::format("{}: {} -> {}", I, Ch.Steps[I - 1].Scenario,
                       Ch.Steps[I].Scenario),
           9);
  C.note(fmt::format("{}: the whole", N), 9);
  return C.str();
}

std::string plotTrend(const driver::TrendFit &T) {
  Canvas C("Trend " + T.Name + ": " + T.Quantity + " by year");
  frame(C);
  double Y0 = double(T.FirstYear) - 0.5, Y1 = double(T.LastYear) + 0.5;
  auto XAt = [&](double Year) {
    return Left + (Year - Y0) / (Y1 - Y0) * (W - Right - Left);
  };
  // The fit's line: exp(a + b year) through its points' fitted values.
  double B = std::log(T.Growth) / T.PerYears;
  double MidYear = 0, MidLog = 0;
  for (const driver::TrendPoint &P : T.Points) {
    MidYear += double(P.Year);
    MidLog += std::log(P.Fitted);
  }
  MidYear /= double(T.Points.size());
  MidLog /= double(T.Points.size());
  auto Fit = [&](double Year) { return std::exp(MidLog + B * (Year - MidYear)); };
  std::optional<double> RefB;
  if (T.Reference)
    RefB = std::log(*T.Reference) / T.PerYears;
  auto Ref = [&](double Year) {
    return std::exp(MidLog + *RefB * (Year - MidYear));
  };
  double Lo = Fit(Y0), Hi = Fit(Y1);
  for (const driver::TrendPoint &P : T.Points) {
    Lo = std::min(Lo, P.Value);
    Hi = std::max(Hi, P.Value);
  }
  if (RefB) {
    Lo = std::min({Lo, Ref(Y0), Ref(Y1)});
    Hi = std::max({Hi, Ref(Y0), Ref(Y1)});
  }
  LogAxis Ya(Lo, Hi, H - Bottom, Top + 10);
  for (double D = Ya.Lo; D <= Ya.Hi; ++D) {
    double Y = Ya.at(std::pow(10, D));
    C.line(Left, Y, W - Right, Y, "#ddd", 0.5);
    C.text(Left - 6, Y + 4, tick(std::pow(10, D), T.Unit), "end", 10);
  }
  for (int64_t Year = T.FirstYear; Year <= T.LastYear; ++Year)
    C.text(XAt(double(Year)), H - Bottom + 16, std::to_string(Year), "middle",
           10);
  C.text((Left + W - Right) / 2, H - 18, "year", "middle", 12);
  C.text(22, (Top + H - Bottom) / 2, T.Quantity + " (" + T.Unit + ")",
         "middle", 12,
         fmt::format("transform=\"rotate(-90 22 {})\"",
                     num((Top + H - Bottom) / 2)));
  C.polyline({{XAt(Y0), Ya.at(Fit(Y0))}, {XAt(Y1), Ya.at(Fit(Y1))}},
             Palette[1], 1.5);
  if (RefB)
    C.line(XAt(Y0), Ya.at(Ref(Y0)), XAt(Y1), Ya.at(Ref(Y1)), Palette[2], 1.5,
           "5 4");
  for (const driver::TrendPoint &P : T.Points)
    C.circle(XAt(double(P.Year)), Ya.at(P.Value), 4, Palette[0],
             fmt::format("{} ({}): {}", P.Accelerator, P.Year,
                         si(P.Value, T.Unit, 4)));
  std::vector<std::pair<std::string, std::string>> Keys = {
      {"a part", Palette[0]},
      {fmt::format("fit: x{:.2f} per {:g} years, R^2 {:.3f}", T.Growth,
                   T.PerYears, T.R2),
       Palette[1]}};
  if (T.Reference)
    Keys.push_back({fmt::format("reference: x{:.2f} per {:g} years (its "
                                "slope, through the fit's middle)",
                                *T.Reference, T.PerYears),
                    Palette[2]});
  C.legend(Keys);
  C.gap();
  for (const driver::TrendPoint &P : T.Points)
    C.note(fmt::format("{} {}", P.Year, P.Accelerator), 9);
  return C.str();
}

} // namespace report
} // namespace llmsys

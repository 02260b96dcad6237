#!/usr/bin/env python3
"""Times the kernels llmsys's operator model prices, on one NVIDIA GPU.

Run on a machine with a GPU and PyTorch (the project's own tests never need
one); writes CSV files into the folder given (default: $OUT or .):

  env.csv        the device, driver, PyTorch and cuBLAS versions, clocks
  gemm.csv       dense GEMMs in bf16, fp8 e4m3 with a per-tensor scale and
                 fp8 with row-wise scales (torch.mm, torch._scaled_mm): square
                 shapes, a K sweep, the linear layers of Llama 3 8B, 70B and
                 405B (forward, input- and weight-gradient shapes) and thin
                 (decode) shapes
  memory.csv     copy, read, and the element-wise kernels of a layer (RMSNorm,
                 LayerNorm, SwiGLU, GELU, add, softmax) and an FP8 cast with
                 its amax
  attention.csv  fused attention (SDPA's FlashAttention-2 and cuDNN backends),
                 causal, head dimension 128, forward and forward+backward at
                 16k tokens a batch (as the FlashAttention-3 paper's charts);
                 and a decode step reading a KV cache
  launch.csv     back-to-back tiny kernels in a CUDA graph and launched from
                 Python
  sustained.csv  a bf16 GEMM repeated for SUSTAIN seconds: its rate each
                 second, with the SM clock and power nvidia-smi reads
  sustained_formats.csv
                 the 12 GEMMs of a Llama 3 8B layer (8192 tokens) repeated for
                 SUSTAIN seconds in bf16, fp8, fp8 row-wise and bf16 again
  burst_and_mix.csv
                 the same 12 GEMMs per format timed in three passes after 3 s
                 idle, then each pass followed by 12 copies of 1 GiB (memory-
                 bound work between GEMMs, as in a training step)
  layer_sweep.csv
                 the same 12 GEMMs at 4096, 8192 and 16384 tokens, BF16 and
                 FP8: timed one by one, ten passes back to back, and mixed
                 with copies
  moe_formats.csv
                 grouped GEMMs over DeepSeek-V3, Qwen3-235B and GPT-OSS-120B
                 experts, BF16 and FP8 row-wise, 1 to 128 tokens an expert
  moe.csv        grouped GEMMs (torch._grouped_mm) over DeepSeek-V3-shaped
                 experts at a few tokens an expert

Each timing is the mean over a loop (captured in a CUDA graph where one
kernel is short) after warm-up, operands on random data, rotating over
copies of the operands so that a thin GEMM's weights come from HBM, not L2.

    python3 tools/measure/kernels.py [OUT]
    SECTIONS=env,sustained_formats python3 tools/measure/kernels.py [OUT]
"""
import csv
import math
import os
import subprocess
import sys
import threading
import time
import traceback

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
SUSTAIN = float(os.environ.get("SUSTAIN", "15"))
DEV = torch.device("cuda")
FP8 = torch.float8_e4m3fn
L2_FLUSH_BYTES = 512 << 20


def log(*a):
    print(*a, flush=True)


class Writer:
    def __init__(self, name, fields):
        self.f = open(os.path.join(OUT, name), "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=fields, lineterminator="\n")
        self.w.writeheader()

    def row(self, **kw):
        self.w.writerow(kw)
        self.f.flush()


def time_fn(fn, min_total=0.03, max_iters=200, graph=None):
    """Mean seconds of fn() on the GPU. Short kernels are captured in a
    CUDA graph of `n` calls so the host's launch cost is not timed."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    one = max(s.elapsed_time(e) * 1e-3, 1e-7)
    n = int(min(max_iters, max(5, math.ceil(min_total / one))))
    if graph is None:
        graph = one < 200e-6
    if graph:
        try:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(2):
                    fn()
            torch.cuda.current_stream().wait_stream(stream)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(n):
                    fn()
            g.replay()
            torch.cuda.synchronize()
            best = float("inf")
            for _ in range(3):
                s.record()
                g.replay()
                e.record()
                e.synchronize()
                best = min(best, s.elapsed_time(e) * 1e-3 / n)
            del g
            return best, n, "graph"
        except Exception as exc:  # fall back to an eager loop
            log("graph capture failed:", exc)
    best = float("inf")
    for _ in range(3):
        s.record()
        for _ in range(n):
            fn()
        e.record()
        e.synchronize()
        best = min(best, s.elapsed_time(e) * 1e-3 / n)
    return best, n, "eager"


def smi(query):
    try:
        return subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as exc:
        return f"error: {exc}"


def section(name, fn):
    t0 = time.time()
    log(f"== {name}")
    try:
        fn()
    except Exception:
        traceback.print_exc()
    log(f"== {name} done in {time.time() - t0:.1f} s")
    torch.cuda.empty_cache()


def env():
    w = Writer("env.csv", ["key", "value"])
    p = torch.cuda.get_device_properties(0)
    w.row(key="device", value=p.name)
    w.row(key="sms", value=p.multi_processor_count)
    w.row(key="memory_bytes", value=p.total_memory)
    w.row(key="l2_bytes", value=getattr(p, "L2_cache_size", ""))
    w.row(key="torch", value=torch.__version__)
    w.row(key="cuda", value=torch.version.cuda)
    w.row(key="cublas", value=torch.backends.cuda.preferred_blas_library())
    w.row(key="cudnn", value=torch.backends.cudnn.version())
    w.row(key="smi", value=smi("name,driver_version,clocks.max.sm,clocks.max.mem,"
                                 "power.limit,clocks.sm,temperature.gpu"))
    w.row(key="date", value=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))


def gemm_shapes():
    """(group, m, n, k) of the GEMMs timed."""
    out = []
    for s in (256, 512, 1024, 2048, 4096, 8192, 16384):
        out.append(("square", s, s, s))
    for k in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
        out.append(("ksweep", 8192, 8192, k))
    # Linear layers (N, K) of a forward pass: QKV, projection, gate+up, down.
    layers = {
        "llama3-8b": [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)],
        "llama3-70b-tp8": [(1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584)],
        "llama3-405b-tp8": [(2304, 16384), (16384, 2048), (13312, 16384), (16384, 6656)],
    }
    for name, nks in layers.items():
        for tokens in (4096, 16384):
            for n, k in nks:
                out.append((f"{name}-fwd", tokens, n, k))
                out.append((f"{name}-dgrad", tokens, k, n))
                out.append((f"{name}-wgrad", n, k, tokens))
    # DeepSeek-V3 routed expert (gate+up 2 x 2048 from 7168; down back).
    for tokens in (128, 512, 2048):
        out.append(("dsv3-expert", tokens, 4096, 7168))
        out.append(("dsv3-expert", tokens, 7168, 2048))
    for m in (1, 16, 64, 128, 256, 512, 1024):
        out.append(("thin", m, 8192, 8192))
        out.append(("thin", m, 28672, 8192))
    return out


def gemm():
    w = Writer("gemm.csv", ["group", "format", "m", "n", "k", "seconds", "tflops",
                            "operand_gbps", "iters", "timer"])
    ones = torch.ones((), device=DEV, dtype=torch.float32)
    for group, m, n, k in gemm_shapes():
        for fmt in ("bf16", "fp8", "fp8_rowwise"):
            try:
                size = 2 if fmt == "bf16" else 1
                op_bytes = size * (m * k + n * k) + 2 * m * n
                copies = max(1, min(16, math.ceil(L2_FLUSH_BYTES / op_bytes)))
                if op_bytes * copies > (24 << 30):
                    copies = 1
                As, Bs = [], []
                for _ in range(copies):
                    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
                    b = torch.randn(n, k, device=DEV, dtype=torch.bfloat16)
                    if fmt != "bf16":
                        a, b = a.to(FP8), b.to(FP8)
                    As.append(a)
                    Bs.append(b.t())
                if fmt == "fp8_rowwise":
                    sa = torch.ones(m, 1, device=DEV, dtype=torch.float32)
                    sb = torch.ones(1, n, device=DEV, dtype=torch.float32)
                state = {"i": 0}

                def fn():
                    i = state["i"] = (state["i"] + 1) % copies
                    if fmt == "bf16":
                        return torch.mm(As[i], Bs[i])
                    if fmt == "fp8":
                        return torch._scaled_mm(As[i], Bs[i], scale_a=ones, scale_b=ones,
                                                out_dtype=torch.bfloat16)
                    return torch._scaled_mm(As[i], Bs[i], scale_a=sa, scale_b=sb,
                                            out_dtype=torch.bfloat16)
                sec, n_it, how = time_fn(fn)
                w.row(group=group, format=fmt, m=m, n=n, k=k, seconds=f"{sec:.4e}",
                      tflops=f"{2 * m * n * k / sec / 1e12:.2f}",
                      operand_gbps=f"{op_bytes / sec / 1e9:.1f}", iters=n_it, timer=how)
                del As, Bs
            except Exception as exc:
                log(f"gemm {group} {fmt} {m}x{n}x{k}: {exc}")
    torch.cuda.empty_cache()


def memory():
    w = Writer("memory.csv", ["kernel", "shape", "bytes", "seconds", "gbps"])
    rows, cols = 16384, 8192
    x = torch.randn(rows, cols, device=DEV, dtype=torch.bfloat16)
    big = torch.randn(1 << 31, device=DEV, dtype=torch.bfloat16)  # 4 GiB
    gate = torch.randn(rows, 2 * cols, device=DEV, dtype=torch.bfloat16)
    wgt = torch.randn(cols, device=DEV, dtype=torch.bfloat16)
    y = torch.randn_like(x)
    e = x.numel() * 2
    amax_scale = torch.ones((), device=DEV)

    def swiglu():
        g, u = gate.chunk(2, dim=-1)
        return F.silu(g) * u

    def fp8_cast():
        amax = x.abs().amax().float()
        return (x * (448.0 / amax)).to(FP8)

    cases = [
        ("copy", "4 GiB", lambda: big.clone(), 2 * big.numel() * 2),
        ("read_sum", "4 GiB", lambda: big.sum(dtype=torch.float32), big.numel() * 2),
        ("rms_norm", f"{rows}x{cols}", lambda: F.rms_norm(x, (cols,), wgt), 2 * e),
        ("layer_norm", f"{rows}x{cols}", lambda: F.layer_norm(x, (cols,), wgt, wgt), 2 * e),
        ("gelu", f"{rows}x{cols}", lambda: F.gelu(x, approximate="tanh"), 2 * e),
        ("add", f"{rows}x{cols}", lambda: x + y, 3 * e),
        # read 2e, write e, and the silu's intermediate written and read: 5e
        # in two kernels; counted 4e here (as timed on 2026-12-04)
        ("swiglu_eager", f"{rows}x{2 * cols}", swiglu, 2 * e + 2 * e),
        ("softmax", f"{rows}x{cols}", lambda: torch.softmax(x, dim=-1), 2 * e),
        ("fp8_cast_amax_eager", f"{rows}x{cols}", fp8_cast, e + e // 2),
        ("fp8_cast_scaled", f"{rows}x{cols}", lambda: (x * amax_scale).to(FP8), e + e // 2),
        ("transpose_copy", f"{rows}x{cols}", lambda: x.t().contiguous(), 2 * e),
    ]
    for name, shape, fn, nbytes in cases:
        try:
            sec, _, _ = time_fn(fn, graph=False)
            w.row(kernel=name, shape=shape, bytes=nbytes, seconds=f"{sec:.4e}",
                  gbps=f"{nbytes / sec / 1e9:.1f}")
        except Exception as exc:
            log(f"memory {name}: {exc}")
    del big


def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    w = Writer("attention.csv", ["backend", "pass", "causal", "batch", "heads", "kv_heads",
                                 "q_len", "kv_len", "head_dim", "seconds", "tflops", "gbps"])
    backends = [("flash2", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    d, heads = 128, 16
    for causal in (True, False):
        for seq in (512, 1024, 2048, 4096, 8192, 16384):
            if not causal and seq not in (2048, 8192):
                continue
            b = 16384 // seq
            for name, be in backends:
                try:
                    q, k, v = (torch.randn(b, heads, seq, d, device=DEV, dtype=torch.bfloat16,
                                           requires_grad=True) for _ in range(3))
                    flops = 4 * b * heads * seq * seq * d / (2 if causal else 1)
                    with sdpa_kernel([be]):
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        sec, _, _ = time_fn(lambda: F.scaled_dot_product_attention(
                            q, k, v, is_causal=causal), graph=False)
                        w.row(backend=name, **{"pass": "fwd"}, causal=int(causal), batch=b,
                              heads=heads, kv_heads=heads, q_len=seq, kv_len=seq, head_dim=d,
                              seconds=f"{sec:.4e}", tflops=f"{flops / sec / 1e12:.1f}", gbps="")
                        go = torch.randn_like(o)

                        def fb():
                            # The gradients are returned, not accumulated
                            # into q.grad, k.grad and v.grad (an extra
                            # read-add-write of each a training step does
                            # not have).
                            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            return torch.autograd.grad(out, (q, k, v), go)
                        sec2, _, _ = time_fn(fb, graph=False)
                        w.row(backend=name, **{"pass": "fwd+bwd"}, causal=int(causal), batch=b,
                              heads=heads, kv_heads=heads, q_len=seq, kv_len=seq, head_dim=d,
                              seconds=f"{sec2:.4e}", tflops=f"{3.5 * flops / sec2 / 1e12:.1f}",
                              gbps="")
                    del q, k, v, o
                except Exception as exc:
                    log(f"attention {name} {seq} causal={causal}: {exc}")
    # Decode: one query token a sequence against a bf16 KV cache (GQA 32/8).
    for kv_len in (1024, 4096, 16384):
        for b in (8, 64):
            for name, be in backends + [("math", SDPBackend.MATH), ("efficient",
                                                                    SDPBackend.EFFICIENT_ATTENTION)]:
                try:
                    hq, hk = 32, 8
                    q = torch.randn(b, hq, 1, d, device=DEV, dtype=torch.bfloat16)
                    k = torch.randn(b, hk, kv_len, d, device=DEV, dtype=torch.bfloat16)
                    v = torch.randn_like(k)
                    with sdpa_kernel([be]):
                        sec, _, _ = time_fn(lambda: F.scaled_dot_product_attention(
                            q, k, v, enable_gqa=True))
                    kv_bytes = 2 * k.numel() * 2
                    w.row(backend=name, **{"pass": "decode"}, causal=0, batch=b, heads=hq,
                          kv_heads=hk, q_len=1, kv_len=kv_len, head_dim=d,
                          seconds=f"{sec:.4e}",
                          tflops=f"{4 * b * hq * kv_len * d / sec / 1e12:.2f}",
                          gbps=f"{kv_bytes / sec / 1e9:.1f}")
                    del q, k, v
                except Exception as exc:
                    log(f"decode {name} {kv_len} {b}: {exc}")


def launch():
    w = Writer("launch.csv", ["how", "kernels", "seconds_per_kernel"])
    t = torch.zeros(1, device=DEV)
    for n in (100, 1000):
        sec, _, _ = time_fn(lambda: [t.add_(1) for _ in range(n)], graph=True,
                            max_iters=1, min_total=0)
        w.row(how="cuda_graph_add", kernels=n, seconds_per_kernel=f"{sec / n:.3e}")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            t.add_(1)
        torch.cuda.synchronize()
        w.row(how="eager_add_python", kernels=n,
              seconds_per_kernel=f"{(time.perf_counter() - t0) / n:.3e}")
    # A chain of small GEMMs (a decode step's shape at batch 1) in a graph.
    a = torch.randn(1, 1024, device=DEV, dtype=torch.bfloat16)
    bm = torch.randn(1024, 1024, device=DEV, dtype=torch.bfloat16)
    sec, _, _ = time_fn(lambda: [torch.mm(a, bm) for _ in range(100)], graph=True,
                        max_iters=1, min_total=0)
    w.row(how="cuda_graph_gemm_1x1024x1024", kernels=100, seconds_per_kernel=f"{sec / 100:.3e}")


def sustain(w, step, flops, **labels):
    """Runs step() back to back for SUSTAIN seconds (step does `flops`
    FLOPs): a row of w per second with its rate and the SM clock, board
    power and temperature nvidia-smi read meanwhile (labels on each row)."""
    readings = []
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            readings.append(smi("clocks.sm,power.draw,temperature.gpu"))
            time.sleep(0.25)
    th = threading.Thread(target=poll)
    th.start()
    start = time.time()
    sec_i = 0
    while time.time() - start < SUSTAIN:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        steps = 0
        t1 = time.time()
        while time.time() - t1 < 1.0:
            step()
            steps += 1
            torch.cuda.synchronize()
        e.record()
        e.synchronize()
        sec = s.elapsed_time(e) * 1e-3
        r = (readings[-1] if readings else ", , ").split(", ")
        w.row(**labels, second=sec_i, tflops=f"{flops * steps / sec / 1e12:.1f}",
              smi_clock_sm_mhz=r[0], smi_power_w=r[1] if len(r) > 1 else "",
              smi_temp_c=r[2] if len(r) > 2 else "")
        sec_i += 1
    stop.set()
    th.join()


def sustained():
    """An 8192^3 BF16 GEMM back to back (twenty a step)."""
    w = Writer("sustained.csv", ["second", "tflops", "smi_clock_sm_mhz", "smi_power_w",
                                 "smi_temp_c"])
    n = 8192
    a = torch.randn(n, n, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=DEV, dtype=torch.bfloat16)

    def step():
        for _ in range(20):
            torch.mm(a, b)
    sustain(w, step, 20 * 2 * n ** 3)


def layer_gemms(fmt, tokens=8192, nks=((6144, 4096), (4096, 4096), (28672, 4096),
                                         (4096, 14336))):
    """Closures running the 12 GEMMs of a Llama 3 8B layer's forward,
    input-gradient and weight-gradient passes in one format; their FLOPs."""
    ones = torch.ones((), device=DEV, dtype=torch.float32)
    calls, flops = [], 0
    for n, k in nks:
        for m, nn, kk in ((tokens, n, k), (tokens, k, n), (n, k, tokens)):
            a = torch.randn(m, kk, device=DEV, dtype=torch.bfloat16)
            b = torch.randn(nn, kk, device=DEV, dtype=torch.bfloat16)
            flops += 2 * m * nn * kk
            if fmt == "bf16":
                calls.append(lambda a=a, b=b.t(): torch.mm(a, b))
                continue
            a, b = a.to(FP8), b.to(FP8).t()
            if fmt == "fp8":
                calls.append(lambda a=a, b=b: torch._scaled_mm(
                    a, b, scale_a=ones, scale_b=ones, out_dtype=torch.bfloat16))
            else:
                sa = torch.ones(m, 1, device=DEV, dtype=torch.float32)
                sb = torch.ones(1, nn, device=DEV, dtype=torch.float32)
                calls.append(lambda a=a, b=b, sa=sa, sb=sb: torch._scaled_mm(
                    a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))
    return calls, flops


def sustained_formats():
    """The Llama 3 8B layer's 12 GEMMs (8192 tokens) repeated for SUSTAIN
    seconds per format, BF16 first and last: the rate each second with the
    clock and power read meanwhile."""
    w = Writer("sustained_formats.csv", ["format", "second", "tflops", "smi_clock_sm_mhz",
                                         "smi_power_w", "smi_temp_c"])
    for fmt in ("bf16", "fp8", "fp8_rowwise", "bf16"):
        calls, flops = layer_gemms(fmt)

        def step():
            for c in calls:
                c()
        sustain(w, step, flops, format=fmt)
        del calls
        torch.cuda.empty_cache()


def mixed_passes(calls, passes, copies, src, dst):
    """`passes` passes over calls, each followed by `copies` copies of src
    into dst (memory-bound work between the GEMMs); the passes' own
    seconds, timed with events around them."""
    events = []
    for _ in range(passes):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for c in calls:
            c()
        e.record()
        for _ in range(copies):
            dst.copy_(src)
        events.append((s, e))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e-3 for s, e in events]


def burst_and_mix():
    """The same 12 GEMMs per format: three single passes after 3 s idle
    (the burst rate before the power limit lowers the clock), then for
    SUSTAIN seconds each pass followed by 12 copies of 1 GiB (a training
    step's memory-bound share); the GEMMs' own rate in that mix is timed
    with events around them."""
    w = Writer("burst_and_mix.csv", ["format", "mode", "index", "tflops",
                                     "smi_clock_sm_mhz", "smi_power_w"])
    src = torch.empty(1 << 29, device=DEV, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    for fmt in ("bf16", "fp8", "fp8_rowwise"):
        calls, flops = layer_gemms(fmt)
        for c in calls:
            c()
        torch.cuda.synchronize()
        time.sleep(3)
        for i in range(3):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for c in calls:
                c()
            e.record()
            e.synchronize()
            r = smi("clocks.sm,power.draw").split(", ")
            w.row(format=fmt, mode="burst", index=i,
                  tflops=f"{flops / (s.elapsed_time(e) * 1e-3) / 1e12:.1f}",
                  smi_clock_sm_mhz=r[0], smi_power_w=r[1] if len(r) > 1 else "")
        start = time.time()
        i = 0
        while time.time() - start < SUSTAIN:
            times = mixed_passes(calls, 10, 12, src, dst)
            t = sum(times) / len(times)
            r = smi("clocks.sm,power.draw").split(", ")
            w.row(format=fmt, mode="mix", index=i, tflops=f"{flops / t / 1e12:.1f}",
                  smi_clock_sm_mhz=r[0], smi_power_w=r[1] if len(r) > 1 else "")
            i += 1
        del calls
        torch.cuda.empty_cache()


def layer_sweep():
    """The 12 GEMMs of a Llama 3 8B layer at 4096, 8192 and 16384 tokens, in
    BF16 and FP8: each GEMM timed alone as gemm() times it (summed), then
    ten passes over the twelve back to back after 1 s idle, then for
    SUSTAIN / 2 seconds mixed with memory-bound copies as burst_and_mix."""
    w = Writer("layer_sweep.csv", ["tokens", "format", "mode", "tflops"])
    src = torch.empty(1 << 29, device=DEV, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    for tokens in (4096, 8192, 16384):
        for fmt in ("bf16", "fp8"):
            calls, flops = layer_gemms(fmt, tokens)
            alone = sum(time_fn(c)[0] for c in calls)
            w.row(tokens=tokens, format=fmt, mode="alone", tflops=f"{flops / alone / 1e12:.1f}")
            torch.cuda.synchronize()
            time.sleep(1)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(10):
                for c in calls:
                    c()
            e.record()
            e.synchronize()
            w.row(tokens=tokens, format=fmt, mode="loop10",
                  tflops=f"{10 * flops / (s.elapsed_time(e) * 1e-3) / 1e12:.1f}")
            start, total, n = time.time(), 0.0, 0
            copies = max(1, round(12 * tokens / 8192))
            while time.time() - start < SUSTAIN / 2:
                times = mixed_passes(calls, 5, copies, src, dst)
                if time.time() - start > 2:  # past the power limit's settling
                    total += sum(times)
                    n += len(times)
            w.row(tokens=tokens, format=fmt, mode="mix",
                  tflops=f"{n * flops / total / 1e12:.1f}" if n else "")
            del calls
            torch.cuda.empty_cache()


def moe():
    w = Writer("moe.csv", ["format", "experts", "tokens_per_expert", "n", "k", "seconds",
                           "weight_gbps", "tflops"])
    for n, k in ((4096, 7168), (7168, 2048)):
        for experts in (8, 32):
            for tpe in (16, 32, 64, 128, 256, 512):
                try:
                    wt = torch.randn(experts, n, k, device=DEV, dtype=torch.bfloat16)
                    x = torch.randn(experts * tpe, k, device=DEV, dtype=torch.bfloat16)
                    offs = torch.arange(1, experts + 1, device=DEV, dtype=torch.int32) * tpe
                    sec, _, _ = time_fn(lambda: torch._grouped_mm(x, wt.transpose(-2, -1),
                                                                  offs=offs))
                    w.row(format="bf16", experts=experts, tokens_per_expert=tpe, n=n, k=k,
                          seconds=f"{sec:.4e}", weight_gbps=f"{wt.numel() * 2 / sec / 1e9:.1f}",
                          tflops=f"{2 * experts * tpe * n * k / sec / 1e12:.1f}")
                    del wt, x
                except Exception as exc:
                    log(f"moe {experts} {tpe}: {exc}")


def moe_formats():
    """Grouped GEMMs over the experts of DeepSeek-V3 (7168 -> 2 x 2048),
    Qwen3-235B-A22B (4096 -> 2 x 1536) and GPT-OSS-120B (2880 -> 2 x 2880),
    up and down, in BF16 (torch._grouped_mm) and FP8 with row-wise scales
    (torch._scaled_grouped_mm), 8 or 32 experts, 1 to 128 tokens an
    expert: the weights each streams and the time it takes."""
    w = Writer("moe_formats.csv", ["format", "model", "gemm", "experts", "tokens_per_expert",
                                   "n", "k", "seconds", "weight_gbps"])
    shapes = {"dsv3": (7168, 2048), "qwen3-235b": (4096, 1536), "gpt-oss-120b": (2880, 2880)}
    for model, (hidden, ffn) in shapes.items():
        for gemm_name, (n, k) in (("up", (2 * ffn, hidden)), ("down", (hidden, ffn))):
            for experts in (8, 32):
                for fmt in ("bf16", "fp8"):
                    wt = torch.randn(experts, n, k, device=DEV, dtype=torch.bfloat16)
                    if fmt == "fp8":
                        wt = wt.to(FP8)
                        sb = torch.ones(experts, n, device=DEV, dtype=torch.float32)
                    for tpe in (1, 2, 4, 8, 16, 32, 64, 128):
                        try:
                            x = torch.randn(experts * tpe, k, device=DEV, dtype=torch.bfloat16)
                            offs = torch.arange(1, experts + 1, device=DEV,
                                                dtype=torch.int32) * tpe
                            if fmt == "bf16":
                                fn = lambda: torch._grouped_mm(x, wt.transpose(-2, -1), offs=offs)
                            else:
                                x8 = x.to(FP8)
                                sa = torch.ones(experts * tpe, device=DEV, dtype=torch.float32)
                                fn = lambda: torch._scaled_grouped_mm(
                                    x8, wt.transpose(-2, -1), sa, sb, offs=offs,
                                    out_dtype=torch.bfloat16)
                            sec, _, _ = time_fn(fn)
                            nbytes = wt.numel() * wt.element_size()
                            w.row(format=fmt, model=model, gemm=gemm_name, experts=experts,
                                  tokens_per_expert=tpe, n=n, k=k, seconds=f"{sec:.4e}",
                                  weight_gbps=f"{nbytes / sec / 1e9:.1f}")
                        except Exception as exc:
                            log(f"moe_formats {fmt} {model} {gemm_name} {experts} {tpe}: "
                                f"{str(exc).splitlines()[0][:160]}")
                    del wt
                    torch.cuda.empty_cache()


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    log(torch.__version__, torch.cuda.get_device_name(0))
    chosen = os.environ.get("SECTIONS", "env,gemm,memory,attention,launch,moe,moe_formats,"
                            "layer_sweep,burst_and_mix,sustained,sustained_formats")
    for name in chosen.split(","):
        section(name, globals()[name])


if __name__ == "__main__":
    main()

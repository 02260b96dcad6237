"""The llmsys Python module against the command line (test/Python/api.test).

Every figure the module returns must be the one `llmsys eval/sweep
--format=json` prints for the same scenario and overrides, and every kind
of bad input must raise its exception."""

import json
import os
import subprocess
import sys
import unittest
import warnings

import llmsys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "spec.llmsys")


def cli(*args):
    out = subprocess.run(["llmsys", *args, "--format=json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def cli_scenario(name):
    doc = cli("eval", SPEC, "--scenario=" + name)
    (report,) = doc["scenarios"]
    return report


def cli_sweep(name):
    return cli("sweep", SPEC, "--sweep=" + name)["results"]


class Load(unittest.TestCase):
    def test_path_and_text(self):
        spec = llmsys.load(SPEC)
        self.assertEqual(spec.scenarios, ["gpt3", "chat"])
        self.assertEqual(spec.sweeps, ["plans", "mb2", "out512"])
        self.assertEqual(spec.kind("gpt3"), "train")
        self.assertEqual(spec.kind("chat"), "serve")
        with open(SPEC) as f:
            text = f.read()
        from_text = llmsys.load(text)
        self.assertEqual(from_text.scenarios, spec.scenarios)
        self.assertEqual(llmsys.load(text=text).sweeps, spec.sweeps)
        self.assertEqual(llmsys.load(path=SPEC).scenarios, spec.scenarios)
        self.assertIn("2 scenarios, 3 sweeps", repr(spec))

    def test_bad_text_raises_located_diagnostics(self):
        with self.assertRaises(llmsys.DiagnosticError) as e:
            llmsys.load("model m {\n  layers = -1\n}\n", name="bad.llmsys")
        d = [x for x in e.exception.diagnostics if "layers" in x["message"]]
        self.assertEqual(len(d), 1)
        self.assertEqual((d[0]["file"], d[0]["line"], d[0]["column"]),
                         ("bad.llmsys", 2, 12))
        self.assertEqual(d[0]["severity"], "error")
        self.assertIn("bad.llmsys:2:12: error:", str(e.exception))
        self.assertIn("^", str(e.exception))

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            llmsys.load(os.path.join(HERE, "no-such-file.llmsys"))
        with self.assertRaises(TypeError):
            llmsys.load()
        with self.assertRaises(TypeError):
            llmsys.load(SPEC, text="train x {}")

    def test_reserved_name(self):
        with self.assertRaises(ValueError):
            llmsys.load(
                "import std.systems.nvidia\nimport std.models.gpt\n"
                "train __llmsys_python__ { model = gpt3_175b; "
                "system = dgx_a100; mapping { tp = 8 } }\n")


class Evaluate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.spec = llmsys.load(SPEC)

    def test_figures_match_the_command_line(self):
        for name in ("gpt3", "chat"):
            figs = self.spec.evaluate(name)
            report = cli_scenario(name)
            keys = [k for k in figs if k in report]
            self.assertGreater(len(keys), 8, name)
            for k in keys:
                self.assertEqual(figs[k], report[k], (name, k))
        self.assertIn("step_time_s", self.spec.evaluate("gpt3"))
        self.assertIn("ttft_s", self.spec.evaluate("chat"))

    def test_report_is_the_json_report(self):
        self.assertEqual(self.spec.report("gpt3"), cli_scenario("gpt3"))

    def test_overrides_match_a_sweep_point(self):
        (point,) = cli_sweep("mb2")
        for figs in (self.spec.evaluate("gpt3", mapping__micro_batch=2),
                     self.spec.evaluate("gpt3", **{"mapping.micro_batch": 2})):
            self.assertEqual(figs["step_time_s"], point["step_time_s"])
        self.assertNotEqual(self.spec.evaluate("gpt3")["step_time_s"],
                            point["step_time_s"])
        (point,) = cli_sweep("out512")
        figs = self.spec.evaluate("chat", output="512 tokens")
        self.assertEqual(figs["throughput_tokens_per_s"],
                         point["throughput_tokens_per_s"])
        report = self.spec.report("gpt3", mapping__micro_batch=2)
        self.assertEqual(report["step_time_s"],
                         cli_sweep("mb2")[0]["step_time_s"])
        self.assertEqual(report["name"], "gpt3")

    def test_unknown_field_is_located_in_the_overrides(self):
        with self.assertRaises(llmsys.DiagnosticError) as e:
            self.spec.evaluate("gpt3", mapping__tq=4)
        (d,) = e.exception.diagnostics
        self.assertEqual(d["id"], "err_unknown_field")
        self.assertEqual(d["file"], "<overrides>")
        self.assertIn("did you mean 'tp'", d["message"])

    def test_bad_values(self):
        with self.assertRaises(llmsys.DiagnosticError):
            self.spec.evaluate("gpt3", mapping__tp=0)
        with self.assertRaises(llmsys.DiagnosticError):
            self.spec.evaluate("chat", output="12 GiB")
        with self.assertRaises(TypeError):
            self.spec.evaluate("gpt3", mapping__tp=object())
        with self.assertRaises(ValueError):
            self.spec.evaluate("gpt3", mapping__tp=float("nan"))
        with self.assertRaises(KeyError) as e:
            self.spec.evaluate("gtp3")
        self.assertIn("did you mean 'gpt3'", str(e.exception))

    def test_overrides_cannot_add_text(self):
        # One value per field, and nothing past it.
        for bad in ({"mapping__micro_batch": "2, 4"},
                    {"mapping__micro_batch": "2]\n  mapping.recompute in [full"},
                    {"}\nsweep z over gpt3 {\n mapping.micro_batch": 2},
                    {"mapping__micro_batch": "2 // x"}):
            with self.assertRaises(ValueError, msg=repr(bad)):
                self.spec.evaluate("gpt3", **bad)
        deep = []
        deep.append(deep)
        with self.assertRaises(TypeError):
            self.spec.evaluate("gpt3", mapping__micro_batch=deep)

    def test_numbers_that_are_not_python_ints(self):
        class Index:
            def __index__(self):
                return 2
        self.assertEqual(
            self.spec.evaluate("gpt3", mapping__micro_batch=Index())["step_time_s"],
            cli_sweep("mb2")[0]["step_time_s"])

    def test_errors_do_not_accumulate(self):
        # Each call has its own diagnostics: the same failure says the
        # same, and a later call that succeeds does not raise.
        texts = []
        for _ in range(3):
            with self.assertRaises(llmsys.DiagnosticError) as e:
                self.spec.evaluate("gpt3", mapping__tp=7)
            texts.append(str(e.exception))
        self.assertEqual(texts[0], texts[2])
        self.assertIn("step_time_s", self.spec.evaluate("gpt3"))

    def test_the_text_loaded_is_the_one_compiled(self):
        import shutil, tempfile
        d = tempfile.mkdtemp()
        copy = os.path.join(d, "spec.llmsys")
        shutil.copy(SPEC, copy)
        spec = llmsys.load(copy)
        before = spec.evaluate("gpt3", mapping__micro_batch=2)
        os.remove(copy)
        self.assertEqual(spec.evaluate("gpt3", mapping__micro_batch=2), before)
        shutil.rmtree(d)

    def test_an_invalid_mapping_is_a_diagnostic(self):
        # 7 does not divide the model's heads.
        with self.assertRaises(llmsys.DiagnosticError):
            self.spec.evaluate("gpt3", mapping__tp=7)

    def test_warnings_are_python_warnings(self):
        text = ("import std.systems.nvidia\nimport std.models.llama\n"
                "serve half { model = llama2_70b; system = hgx_h200\n"
                "  mapping { tp = 4 }; batch = 1; prompt = 128 tokens\n"
                "  output = 16 tokens }\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            spec = llmsys.load(text, name="half.llmsys")
        w = [c for c in caught if issubclass(c.category, llmsys.SpecWarning)]
        self.assertEqual(len(w), 1)
        self.assertIn("half.llmsys:4:3: warning:", str(w[0].message))
        self.assertIn("stay idle", str(w[0].message))
        # Raised as an error when asked, as Python's warnings filters do.
        with warnings.catch_warnings():
            warnings.simplefilter("error", llmsys.SpecWarning)
            with self.assertRaises(llmsys.SpecWarning):
                llmsys.load(text)
        self.assertIn("ttft_s", spec.evaluate("half"))


class Sweep(unittest.TestCase):
    def test_rows_match_the_command_line(self):
        spec = llmsys.load(SPEC)
        rows = spec.sweep("plans")
        ref = cli_sweep("plans")
        self.assertEqual(len(rows), len(ref))
        for row, r in zip(rows, ref):
            self.assertEqual(row["rank"], r["rank"])
            for axis, value in r["inputs"].items():
                self.assertEqual(row[axis], value)
            for k, v in r.items():
                if k not in ("inputs",):
                    self.assertEqual(row[k], v, k)
        # Flat rows with the same keys: what a DataFrame takes.
        self.assertTrue(all(list(r) == list(rows[0]) for r in rows))
        self.assertTrue(all(not isinstance(v, (dict, list))
                            for r in rows for v in r.values()))

    def test_which_sweep(self):
        spec = llmsys.load(SPEC)
        with self.assertRaises(ValueError):
            spec.sweep()
        with self.assertRaises(KeyError):
            spec.sweep("plan")


class Figures(unittest.TestCase):
    def test_table(self):
        table = {f["name"] + "/" + f["kind"]: f for f in llmsys.figures()}
        self.assertEqual(table["step_time/train"]["key"], "step_time_s")
        self.assertEqual(table["step_time/train"]["better"], "lower")
        self.assertEqual(table["throughput/serve"]["better"], "higher")


if __name__ == "__main__":
    unittest.main()

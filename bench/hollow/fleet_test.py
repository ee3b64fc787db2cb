"""Tests for fleet.py: python3 -m unittest discover -s bench/hollow -p '*_test.py'."""

import unittest

import fleet


def run(rss, cores, gor, error=""):
    return {"nodes": 1, "podsPerNode": 1000, "periodS": 1, "handlers": "mixed", "rssMiB": rss, "cpuCores": cores,
            "goroutines": gor, "error": error}


class SavingTest(unittest.TestCase):
    def test_saving(self):
        cases = [
            ("all positive", [59.1, 60.2, 57.0], (1, 59.1, 57.0, 60.2)),
            ("all negative", [-2.0, -4.0, -3.0], (-1, 3.0, 2.0, 4.0)),
            ("mixed signs", [0.07, -0.01, 0.05], None),
            ("a zero round", [0.0, 1.0, 2.0], None),
            ("one pair", [5.0], None),
            ("no pair", [], None),
        ]
        for name, diffs, want in cases:
            with self.subTest(name):
                got, why = fleet.saving(diffs)
                self.assertEqual(got, want)
                self.assertEqual(why == "", want is not None)


class PairsTest(unittest.TestCase):
    def test_pairs_skip_failed_rounds_and_missing_keys(self):
        runs = {
            "stock": [run(250, 0.7, 5000), run(260, 0.8, 5100, error="timeout"), run(255, 0.75, 5050), {"error": ""}],
            "probewheel": [run(190, 0.6, 2100), run(200, 0.7, 2150), run(195, 0.8, 2120), run(1, 1, 1)],
        }
        self.assertEqual(fleet.pairs(runs, "rssMiB"), [60, 60])
        self.assertEqual([round(d, 3) for d in fleet.pairs(runs, "cpuCores")], [0.1, -0.05])

    def test_rounds_pair_by_number(self):
        runs = {"stock": [dict(run(10, 1, 1), round=1), dict(run(12, 1, 1), round=2)],
                "probewheel": [dict(run(9, 1, 1), round=2)]}
        self.assertEqual(fleet.pairs(runs, "rssMiB"), [3])


class TableTest(unittest.TestCase):
    def test_table(self):
        data = {
            "1x1000-1s-mixed": {
                "stock": [run(250, 0.70, 5000), run(252, 0.68, 5100), run(251, 0.69, 5050)],
                "probewheel": [run(190, 0.62, 2100), run(193, 0.70, 2150), run(192, 0.61, 2120)],
            },
            "10x500-10s-mixed": {"stock": [dict(run(1, 1, 1), nodes=10)], "probewheel": [dict(run(1, 1, 1), nodes=10)]},
        }
        got = fleet.table(data, lambda r: f"{r['podsPerNode']} pods")
        lines = got.strip().split("\n")
        self.assertEqual(len(lines), 3, got)  # header, rule, one row: the many-nodes workload is left out
        row = lines[2]
        # RSS: differences 60, 59, 59 -> median 59 MiB; x 5,000 / 1024 = 288 GiB.
        self.assertIn("| 59.0 MiB (59.0 ... 60.0) | 288 GiB (288 ... 293) |", row)
        # CPU: 0.08, -0.02, 0.08: the rounds disagree.
        self.assertIn("0.080 / -0.020 / 0.080 cores | rounds disagree on the sign: not shown |", row)
        # goroutines: 2900, 2950, 2930 -> 14.65 million fewer.
        self.assertIn("| 2,930 (2,900 ... 2,950) | 14.6 million (14.5 ... 14.8) |", row)

    def test_no_one_node_workload(self):
        self.assertIn("no fleet figure", fleet.table({}, str))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""read-run.py -- a trainsim run file with h5py and pandas.

    python3 doc/examples/read-run.py RUN.h5

Prints the summary with units, the time series as a DataFrame (the run's
state by name), and the events counted by kind, with what each kind's
`who` and `value` mean.  Everything it needs is in the file: units as
attributes, the state and event kinds as HDF5 enum types, and /events
documented by its own attributes.
"""
import sys

import h5py
import pandas as pd


def enum_names(dtype):
    """code -> name of an HDF5 enum type (as h5py exposes it)."""
    mapping = h5py.check_enum_dtype(dtype)
    return {code: name for name, code in mapping.items()}


def load(path):
    with h5py.File(path, "r") as f:
        version = int(f.attrs.get("layout_version", 1))
        if version != 2:
            raise SystemExit(f"{path}: layout_version {version}; this script reads 2")

        # /summary: one attribute per figure, its unit under /summary/units.
        s = f["summary"]
        summary = pd.DataFrame(
            {"value": [float(s.attrs[k]) for k in s.attrs],
             "unit": [s["units"].attrs[k] for k in s.attrs]},
            index=list(s.attrs))

        # /timeseries: equal-length columns; enum columns become categories.
        ts = {}
        for name, d in f["timeseries"].items():
            names = enum_names(d.dtype) if h5py.check_enum_dtype(d.dtype) else None
            col = d[()]
            ts[name] = pd.Categorical.from_codes(col, [names[i] for i in sorted(names)]) \
                if names else col
        series = pd.DataFrame(ts).set_index("time_s")
        units = {name: d.attrs.get("unit", "") for name, d in f["timeseries"].items()}

        # /events: the kind member is an enum; its meanings are attributes.
        ev = f["events"]
        kinds = enum_names(ev.dtype["kind"])
        rows = ev[()]
        events = pd.DataFrame({
            "time_s": rows["time_s"],
            "kind": [kinds[c] for c in rows["kind"]],
            "who": rows["who"],
            "value": rows["value"]})
        meaning = {k: ev.attrs[k] for k in kinds.values() if k in ev.attrs}
    return summary, series, units, events, meaning


def main():
    summary, series, units, events, meaning = load(sys.argv[1])
    print("summary:")
    for key in ("duration_s", "tokens", "cost_usd", "carbon_kg"):
        if key in summary.index:
            print(f"  {key} {summary.at[key, 'value']:.17g} {summary.at[key, 'unit']}")
    print(f"series: {len(series)} samples of {len(series.columns)} columns")
    print("  state share:", ", ".join(
        f"{k} {v:.3f}" for k, v in series["state"].value_counts(normalize=True).items()
        if v > 0))
    print(f"  active_gpus max {series['active_gpus'].max():g} {units['active_gpus']}")
    print("events by kind:")
    for kind, n in events.groupby("kind").size().items():
        print(f"  {kind} {n}  ({meaning.get(kind, '')})")


if __name__ == "__main__":
    main()

"""Human-readable numbers for tables and axis labels."""

from __future__ import annotations

_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_BYTE_STEPS = ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"), (1, "B"))


def _fmt_scaled(value: float | None, steps: tuple[tuple[float, str], ...]) -> str:
    """Three significant digits in the largest unit of `steps` (largest first) the value
    reaches, else in the smallest."""
    if value is None:
        return "–"
    for scale, unit in steps:
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    scale, unit = steps[-1]
    return f"{value / scale:.3g} {unit}"


def fmt_time(seconds: float | None) -> str:
    return _fmt_scaled(seconds, _TIME_STEPS)


def fmt_bytes(count: float | None) -> str:
    if count is None:
        return "–"
    for scale, unit in _BYTE_STEPS:
        if abs(count) >= scale:
            value = count / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{count:.0f} B"


def fmt_num(value: float | None, digits: int = 3) -> str:
    """Significant digits without switching to exponent notation for ordinary sizes."""
    if value is None:
        return "–"
    if value == 0:
        return "0"
    if abs(value) >= 10 ** digits:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "–"
    # Two decimals read 0.00× for a GPU 140 times slower (lucas): small ratios keep 2 digits.
    if value != 0 and abs(value) < 0.1:
        return f"{value:.2g}×"
    return f"{value:.2f}×"


def fmt_err(value: float | None) -> str:
    return "–" if value is None else f"{value:.2e}"


def fmt_cuda_version(raw: str | None) -> str | None:
    """CUDA reports versions as 1000*major + 10*minor (12080 -> 12.8)."""
    if raw is None:
        return None
    text = str(raw)
    if text.isdigit() and int(text) >= 1000:
        value = int(text)
        return f"{value // 1000}.{(value % 1000) // 10}"
    return text


_ENERGY_STEPS = ((1.0, "J"), (1e-3, "mJ"), (1e-6, "µJ"), (1e-9, "nJ"), (1e-12, "pJ"))


def fmt_energy(joules: float | None) -> str:
    return _fmt_scaled(joules, _ENERGY_STEPS)


def fmt_speedup(value: float, unit: bool = True) -> str:
    """A speedup as every renderer shows it (chart labels, tables, headline): one rounding, so a
    chart and a table never disagree. 1,234× / 12.3× / 1.23× / 0.0123×."""
    if value >= 100:
        text = f"{value:,.0f}"
    elif value >= 10:
        text = f"{value:.1f}"
    elif value >= 0.1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3g}"
    return text + ("×" if unit else "")

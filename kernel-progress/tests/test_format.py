"""The bar's text: what a user reads."""


from kernel_progress import format_bar, format_eta, format_line, period_for


def test_eta_is_minutes_and_seconds_or_hours():
    assert format_eta(0) == "0:00"
    assert format_eta(65.4) == "1:05"
    assert format_eta(3725) == "1:02:05"
    assert format_eta(-1) == "--:--"


def test_bar_shows_fill_percent_rate_and_eta():
    text = format_bar(500, 1000, 100.0, width=10)
    assert text == "[#####-----]  50.0%  100/s  ETA 0:05"


def test_bar_is_full_and_eta_zero_at_the_end():
    assert format_bar(1000, 1000, 1e9, width=4) == "[####] 100.0%  1e+09/s  ETA 0:00"


def test_bar_without_total_shows_count_and_rate():
    assert format_bar(42, 0, 2.0) == "42  2/s"


def test_line_for_logs():
    assert format_line(250, 1000, 50.0) == "progress: 25.0% (250/1000) 50/s ETA 15.0 s"
    assert format_line(7, 0, 1.0) == "progress: 7 1/s"
    assert format_line(0, 10, 0.0) == "progress: 0.0% (0/10) 0/s"


def test_period_is_at_least_20_us_and_100_ns_per_writer():
    assert period_for(1) == 20_000
    assert period_for(1024) == 102_400
    assert period_for(8192) == 819_200

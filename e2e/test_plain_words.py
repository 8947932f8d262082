"""Issue 33, item 4: no developer words on a Japanese page. Every page a person reaches from the
navigation is rendered in Japanese with real data in it (an Apple Health export with workouts, rings
and metadata, a GPX track with stays, a waypoint without a time, a diary entry) and its visible text
and labels are searched for type identifiers, raw units, JSON and English words from a list."""
import datetime
import os
import re
import tempfile
import urllib.parse

from selenium.webdriver.common.by import By

from conftest import ROOT, shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text

# Words a Japanese page must never show. Type identifiers and JSON are caught by the patterns below;
# these are the English words and raw units the issue found, and their neighbours.
ENGLISH_WORDS = ["Record", "Records", "ActivitySummary", "Workout", "Location", "Running", "Walking", "Cycling",
                 "Swimming", "Other", "duplicate", "duplicates", "skipped", "added", "done", "failed", "running",
                 "queued", "approximate-time", "approximate", "members", "true", "false", "null", "undefined", "NaN",
                 "Infinity", "Invalid Date", "records", "days", "visits", "entries"]
RAW_UNITS = ["count/min", "count", "/min", "min", "cal", "km/h"]
# Names of products and formats are not developer words: they stay as their makers write them.
ALLOWED = {"iPhone", "iPad", "OwnTracks", "GeoJSON", "GitHub", "PostgreSQL", "SQLite", "OpenStreetMap", "DayOne", "macOS", "YouTube", "JavaScript"}

PATTERNS = [
    ("type identifier", re.compile(r"\bHK[A-Z][A-Za-z]+")),
    ("camelCase identifier", re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")),
    ("PascalCase identifier", re.compile(r"\b[A-Z][a-z]+[A-Z][a-z]+[A-Za-z]*\b")),
    ("JSON", re.compile(r"\{\s*\"|\"\s*:\s*[\"{\[0-9]|\[\s*\{")),
    ("English word", re.compile(r"(?<![A-Za-z\-])(" + "|".join(re.escape(w) for w in ENGLISH_WORDS) + r")(?![A-Za-z\-])")),
    ("raw unit", re.compile(r"(?<=[0-9\s])(" + "|".join(re.escape(u) for u in RAW_UNITS) + r")(?![A-Za-z/])")),
]

# Text a person reads: visible text and the labels a screen reader says. Code samples (<code>, <kbd>)
# are commands to type, and a form field holds what the person typed: both are left out.
READABLE_TEXT = """
const out = [];
const skip = el => el.closest('script,style,noscript,code,kbd,pre,textarea,select,[translate=no],[lang]:not(html)');
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const el = n.parentElement;
  if (!el || skip(el) || !n.textContent.trim()) continue;
  const style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility === 'hidden') continue;
  out.push(n.textContent.trim());
}
for (const el of document.querySelectorAll('[placeholder],[title],[aria-label],[alt],input[type=submit],input[type=button]')) {
  if (skip(el)) continue;
  for (const a of ['placeholder', 'title', 'aria-label', 'alt']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  if (el.type === 'submit' || el.type === 'button') out.push(el.value);
}
return out;
"""


# A folder of the server's shown to its administrator (where backups go) is a path, not words: its random
# parts (a temp folder's "jHdcXq") read as camelCase.
FILE_PATH = re.compile(r"(?<![\w/])/(?:[\w.\-]+/)*[\w.\-]+")


def developer_words(lines):
    found = []
    for line in lines:
        line = FILE_PATH.sub(" ", line)
        for kind, pattern in PATTERNS:
            for match in pattern.finditer(line):
                if match.group(0) not in ALLOWED:
                    found.append(f"{kind} {match.group(0)!r} in {line[:120]!r}")
    return found


def test_the_checker_finds_each_kind_of_developer_word():
    """The checker itself, on lines the issue quoted: it must not pass a page that has them."""
    quoted = ["Record: 3 added", "ActivitySummary", "完了 · +5 / =0 done", "ワークアウト · Running", "72 count/min",
              '{"HKMetadataKeyHeartRateMotionContext":"0"}', "ラベル approximate-time", "heartRate"]
    assert len(developer_words(quoted)) >= len(quoted)
    assert developer_words(["72 拍/分", "iPhone · Apple Watch", "5.1 km · 310 kcal", "8,432 歩",
                            "バックアップを /tmp/hibi-test.jHdcXq/tmp/backups に書き出します"]) == []
    assert developer_words(["/tmp/x に heartRate"]) != []


def apple_export(days=9):
    today = datetime.date.today()
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me,(Record|Workout|ActivitySummary)*)>\n'
             '<!ATTLIST HealthData locale CDATA #REQUIRED>\n]>',
             '<HealthData locale="ja_JP">', f' <ExportDate value="{today.isoformat()} 09:00:00 +0900"/>',
             ' <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-04-01"/>']
    for i in range(days):
        d = (today - datetime.timedelta(days=days - 1 - i)).isoformat()
        lines += [
            f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="{d} 08:00:00 +0900" endDate="{d} 09:00:00 +0900" value="{8000 + i * 54}"/>',
            f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" startDate="{d} 08:00:00 +0900" endDate="{d} 08:00:00 +0900" value="72">\n'
            '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n </Record>',
            f' <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health" unit="kg" startDate="{d} 07:00:00 +0900" endDate="{d} 07:00:00 +0900" value="{62 - i * 0.1:.1f}"/>',
            f' <Record type="HKQuantityTypeIdentifierFlightsClimbed" sourceName="iPhone" unit="count" startDate="{d} 10:00:00 +0900" endDate="{d} 10:10:00 +0900" value="3"/>',
            f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" totalDistance="5.1" totalDistanceUnit="km" totalEnergyBurned="310" totalEnergyBurnedUnit="kcal" sourceName="Apple Watch" startDate="{d} 18:00:00 +0900" endDate="{d} 18:30:00 +0900">\n'
            '  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n </Workout>',
            f' <ActivitySummary dateComponents="{d}" activeEnergyBurned="450.5" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>',
        ]
    lines.append("</HealthData>")
    path = os.path.join(tempfile.mkdtemp(), "export.xml")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def to_japanese(driver):
    old = driver.find_element(By.TAG_NAME, "html")
    driver.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
    settle(driver, old)


def seed(driver, base, tmp):
    """An account with a week of Apple Health data, two stays and a timeless waypoint, and a diary entry,
    each brought in the way a person would, on the Japanese pages (the import reports are checked too)."""
    driver.get(base + "/setup")
    fill(driver, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(driver, "setup-form")
    wait_text(driver, "h1", "Hello")
    to_japanese(driver)
    reports = []

    driver.get(base + "/health/import")
    driver.find_element(By.ID, "apple-file").send_keys(apple_export())
    driver.find_element(By.ID, "apple-submit").click()
    wait_text(driver, "#import-message", "読み込み完了", timeout=60)
    wait_text(driver, "#import-report", "", timeout=10)
    reports.append(("/health/import (report)", driver.execute_script(READABLE_TEXT)))
    shot(driver, "plain-words-health-import-ja")

    waypoint = tmp / "waypoint.gpx"
    waypoint.write_text('<?xml version="1.0"?>\n<gpx version="1.1"><metadata><time>2024-05-01T00:00:00Z</time></metadata>\n'
                        '<wpt lat="34.9875" lon="135.7592"><name>京都タワー</name></wpt>\n</gpx>\n')
    for path in (ROOT / "Tests" / "Fixtures" / "locations" / "two-stops.gpx", waypoint):
        driver.get(base + "/visits/transfer")
        driver.find_element(By.ID, "import-file").send_keys(str(path))
        driver.find_element(By.ID, "import-button").click()
        wait_text(driver, "#import-result .import-report", "", timeout=30)
        reports.append((f"/visits/transfer (report for {path.name})", driver.execute_script(READABLE_TEXT)))

    driver.get(base + "/diary")
    fill(driver, password=PASSWORD)
    submit(driver, "unlock-password")
    driver.get(base + "/diary/new")
    driver.execute_script("document.getElementById('date').value = arguments[0]", datetime.date.today().isoformat())
    fill(driver, text="川沿いを散歩した。紅葉がきれいだった。", tags="散歩")
    driver.find_element(By.CSS_SELECTOR, "label.mood-option input[value=happiness] + span").click()
    submit(driver, "entry-form")
    wait_text(driver, ".entry-text", "川沿い")
    return reports


START = ["/", "/diary", "/diary/new", "/diary/stats", "/diary/calendar", "/diary/import", "/health",
         "/health/trends?type=heartRate&range=month", "/health/trends?type=steps&range=week", "/health/goals",
         "/health/badges", "/health/import", "/visits", "/visits/places", "/visits/transfer", "/videos", "/settings",
         "/settings/import", "/admin/users", "/admin/backups", "/search?q=72", "/search?q=Apple", "/search?q=京都",
         "/search?q=Running"]
SHOTS = {"/": "today", "/health": "health", "/search?q=Apple": "search", "/visits": "visits", "/health/import": "import"}
# Links that change something, download a file or leave the pages a person reads.
NOT_PAGES = re.compile(r"/api/|/static/|/vendor/|logout|/export|download|\.(zip|csv|gpx|json|xml|png|jpg|mp4)\b|/lock\b|/face")


def test_no_developer_words_on_any_japanese_page(server, browser, tmp_path):
    base = server["base"]
    problems = []
    for page, lines in seed(browser, base, tmp_path):
        problems += [f"{page}: {p}" for p in developer_words(lines)]
    seen, queue = set(), list(START)
    while queue and len(seen) < 90:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        browser.get(base + path)
        problems += [f"{path}: {p}" for p in developer_words(browser.execute_script(READABLE_TEXT))]
        if path in SHOTS:
            for theme in ("light", "dark"):
                browser.add_cookie({"name": "hibi-theme", "value": theme, "path": "/"})
                browser.get(base + path)
                shot(browser, f"plain-words-{SHOTS[path]}-ja-{theme}")
        # One level of links from the pages above: a day, a visit, a record, a workout, a trend.
        if path in START:
            for href in browser.execute_script("return [...document.querySelectorAll('main a[href]')].map(a => a.getAttribute('href'))"):
                url = urllib.parse.urlsplit(urllib.parse.urljoin(base + path, href))
                if url.netloc != urllib.parse.urlsplit(base).netloc or NOT_PAGES.search(url.path):
                    continue
                target = url.path + (f"?{url.query}" if url.query else "")
                if target not in seen:
                    queue.append(target)
    shot(browser, "plain-words-last-page-ja")
    assert len(seen) > 40, seen
    assert not problems, "\n".join(sorted(set(problems)))

"""Health: enter a record, import an Apple Health export with the progress bar, set a goal, see badges and charts."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text


def export_xml(days=20):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me,(Record|Workout|ActivitySummary)*)>\n<!ATTLIST HealthData locale CDATA #REQUIRED>\n]>',
             '<HealthData locale="ja_JP">', ' <ExportDate value="2024-06-01 09:00:00 +0900"/>',
             ' <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-04-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>']
    import datetime
    today = datetime.date.today()
    for i in range(days):
        d = today - datetime.timedelta(days=days - 1 - i)
        stamp = f"{d.isoformat()} 08:00:00 +0900"
        end = f"{d.isoformat()} 09:00:00 +0900"
        lines.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="{stamp}" endDate="{end}" value="{6000 + i * 150}"/>')
        lines.append(f' <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health" unit="kg" startDate="{stamp}" endDate="{stamp}" value="{66 - i * 0.1:.1f}"/>')
        lines.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" startDate="{stamp}" endDate="{stamp}" value="70">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n </Record>')
    lines.append("</HealthData>")
    path = os.path.join(tempfile.mkdtemp(), "export.xml")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def setup(browser, base):
    browser.get(base + "/")
    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    wait_text(browser, "h1", "Hello, Aiko")


def test_entry_import_goal_badges_trends(server, browser):
    base = server["base"]
    setup(browser, base)
    browser.get(base + "/health")
    wait_text(browser, "h1", "Health")

    # A wrong value is refused with a clear message, then a right one is saved and earns the first badge.
    Select(browser.find_element(By.ID, "record-type")).select_by_value("steps")
    fill(browser, value="-20")
    submit(browser, "record-form")
    wait_text(browser, ".notice.error", "Steps must be between 0 and 200,000.")
    Select(browser.find_element(By.ID, "record-type")).select_by_value("weight")
    Select(browser.find_element(By.ID, "record-unit")).select_by_value("lb")
    fill(browser, value="140")
    submit(browser, "record-form")
    wait_text(browser, ".notice.success", "New badge: First step")
    wait_text(browser, "#records-table", "63.5 kg")
    shot(browser, "health-01-overview")

    # Apple Health import with a progress bar the page polls.
    browser.get(base + "/health/import")
    browser.find_element(By.ID, "apple-file").send_keys(export_xml())
    browser.find_element(By.ID, "apple-submit").click()
    wait_text(browser, "#import-message", "Import finished: 60 added, 0 already there", timeout=30)
    assert browser.find_element(By.ID, "import-progress").get_attribute("value") == "100"
    # What the import did, per kind of element, under the message.
    wait_text(browser, "#import-report", "Health records: ", timeout=10)
    shot(browser, "health-02-import")

    # A goal with progress from the records.
    browser.get(base + "/health/goals")
    Select(browser.find_element(By.ID, "goal-type")).select_by_value("steps")
    fill(browser, target="500000")
    browser.execute_script("document.getElementById('goal-deadline').value = new Date(Date.now() + 30*86400000).toISOString().slice(0,10)")
    submit(browser, "goal-form")
    wait_text(browser, "#goal-list", "Steps")
    shot(browser, "health-03-goals")

    # Badges: earned and locked images; the 7-day streak came with the import.
    browser.get(base + "/health/badges")
    earned = browser.find_elements(By.CSS_SELECTOR, ".badge-card.earned")
    locked = browser.find_elements(By.CSS_SELECTOR, ".badge-card.locked")
    assert {e.get_attribute("data-badge") for e in earned} >= {"first-step", "streak-7"}
    assert any(e.get_attribute("data-badge") == "streak-30" for e in locked)
    assert all(img.get_attribute("naturalWidth") != "0" for img in browser.find_elements(By.CSS_SELECTOR, ".badge-card img"))
    shot(browser, "health-04-badges")

    # A chart with points and its moving average, and an insight with a confidence.
    browser.get(base + "/health/trends?type=weight&range=month")
    points = browser.find_elements(By.CSS_SELECTOR, "#trend-chart circle.point")
    assert len(points) >= 20
    assert browser.find_elements(By.CSS_SELECTOR, "#trend-chart polyline.moving-average")
    wait_text(browser, "#insights", "Weight is falling")
    wait_text(browser, "#insights", "confidence")
    shot(browser, "health-05-trends")

    browser.get(base + "/health/share?steps=1&badge=1")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.getElementById('share-image').naturalWidth") > 0)
    shot(browser, "health-06-share")


def test_phone_layout_and_japanese(server, phone):
    base = server["base"]
    setup(phone, base)
    old = phone.find_element(By.TAG_NAME, "html")
    phone.execute_script("""
      const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();""")
    settle(phone, old)
    phone.get(base + "/health")
    wait_text(phone, "h1", "健康")
    Select(phone.find_element(By.ID, "record-type")).select_by_value("steps")
    fill(phone, value="9000")
    submit(phone, "record-form")
    wait_text(phone, ".notice.success", "新しいバッジ: はじめの一歩")
    width, viewport = phone.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= viewport, f"page scrolls sideways on a phone: {width}px in {viewport}px"
    shot(phone, "health-07-phone")
    phone.get(base + "/health/badges")
    wait_text(phone, "#badge-grid", "はじめの一歩")
    shot(phone, "health-08-phone-badges")

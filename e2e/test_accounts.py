"""Setup → sign in → wrong password → language switch → sign out → lockout, as a person would do it."""
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import shot

PASSWORD = "correct horse battery"


def fill(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)


def submit(driver, form_id):
    """Submits and waits for the next page, so no check ever reads the page being left."""
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, f"#{form_id} button[type=submit]").click()
    settle(driver, old)


def settle(driver, old):
    def gone(_):
        # Chromium reports a detached node either as stale or as "does not belong to the document".
        try:
            old.is_enabled()
            return False
        except WebDriverException:
            return True
    WebDriverWait(driver, 10).until(gone)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def wait_text(driver, css, text, timeout=10):
    """Waits until the element shows the text; pages reload after each submit, so elements go stale."""
    try:
        WebDriverWait(driver, timeout).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    except TimeoutException:
        shot(driver, "failure")
        raise AssertionError(f"{css!r} never showed {text!r}; page says: {driver.find_element(By.TAG_NAME, 'main').text[:300]}")
    return driver.find_element(By.CSS_SELECTOR, css).text


def sign_out(driver):
    driver.find_element(By.CSS_SELECTOR, ".user-menu summary").click()
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, "sign-out").click()
    settle(driver, old)
    assert "/login" in driver.current_url


def test_setup_login_language_logout_lockout(server, browser):
    base = server["base"]
    browser.get(base + "/")
    assert browser.current_url.endswith("/setup"), "a fresh server must open on the setup page"
    assert "Welcome to Hibi" in browser.page_source
    shot(browser, "01-setup")

    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    wait_text(browser, "h1", "Hello, Aiko")
    shot(browser, "02-today")

    sign_out(browser)

    fill(browser, username="aiko", password="wrong password!")
    submit(browser, "login-form")
    wait_text(browser, ".notice.error", "Wrong username or password")
    shot(browser, "03-wrong-password")

    # Switching the language from the footer: the page answers in Japanese at once.
    old = browser.find_element(By.TAG_NAME, "html")
    Select(browser.find_element(By.ID, "language-select")).select_by_value("ja")
    settle(browser, old)
    wait_text(browser, "h1", "サインイン")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja"
    shot(browser, "04-login-ja")

    fill(browser, username="aiko", password=PASSWORD)
    submit(browser, "login-form")
    wait_text(browser, "h1", "こんにちは")
    sign_out(browser)

    for _ in range(4):
        fill(browser, username="aiko", password="still wrong!!")
        submit(browser, "login-form")
        wait_text(browser, ".notice.error", "ユーザー名またはパスワードが違います")
    fill(browser, username="aiko", password="still wrong!!")
    submit(browser, "login-form")
    wait_text(browser, ".notice.error", "サインインの失敗が多すぎます")
    # Locked means locked: the right password does not get in either.
    fill(browser, username="aiko", password=PASSWORD)
    submit(browser, "login-form")
    wait_text(browser, ".notice.error", "サインインの失敗が多すぎます")
    shot(browser, "05-locked-ja")


def test_settings_and_admin_look_finished_on_a_phone(server, phone):
    base = server["base"]
    phone.get(base + "/setup")
    fill(phone, username="ken", password=PASSWORD, password_confirm=PASSWORD)
    submit(phone, "setup-form")
    wait_text(phone, "h1", "Hello")
    phone.get(base + "/settings")
    # The diary is locked in a fresh session, so making a token asks for the password again.
    fill(phone, name="my script", password=PASSWORD)
    phone.find_element(By.ID, "scope-write").click()
    old = phone.find_element(By.TAG_NAME, "html")
    phone.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    settle(phone, old)
    token = wait_text(phone, "#new-token", "hibi_")
    assert token.startswith("hibi_")
    shot(phone, "06-settings-phone")
    phone.get(base + "/admin/users")
    assert phone.find_element(By.CSS_SELECTOR, 'tr[data-username="ken"]')
    shot(phone, "07-admin-phone")
    phone.get(base + "/no/such/page")
    assert "Page not found" in phone.page_source
    shot(phone, "08-not-found-phone")

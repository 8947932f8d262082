"""Setup → sign in → wrong password → language switch → sign out → lockout, as a person would do it."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import shot

PASSWORD = "correct horse battery"


def fill(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)


def submit(driver, form_id):
    driver.find_element(By.CSS_SELECTOR, f"#{form_id} button[type=submit]").click()


def test_setup_login_language_logout_lockout(server, browser):
    base = server["base"]
    browser.get(base + "/")
    assert browser.current_url.endswith("/setup"), "a fresh server must open on the setup page"
    assert "Welcome to Hibi" in browser.page_source
    shot(browser, "01-setup")

    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    assert "Hello, Aiko" in browser.find_element(By.TAG_NAME, "h1").text
    shot(browser, "02-today")

    browser.find_element(By.CSS_SELECTOR, ".user-menu summary").click()
    browser.find_element(By.ID, "sign-out").click()
    assert "/login" in browser.current_url

    fill(browser, username="aiko", password="wrong password!")
    submit(browser, "login-form")
    alert = browser.find_element(By.CSS_SELECTOR, ".notice.error")
    assert "Wrong username or password" in alert.text
    shot(browser, "03-wrong-password")

    # Switching the language from the footer: the page answers in Japanese at once.
    Select(browser.find_element(By.ID, "language-select")).select_by_value("ja")
    assert browser.find_element(By.TAG_NAME, "h1").text == "サインイン"
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja"
    shot(browser, "04-login-ja")

    fill(browser, username="aiko", password=PASSWORD)
    submit(browser, "login-form")
    assert "こんにちは" in browser.find_element(By.TAG_NAME, "h1").text
    browser.find_element(By.CSS_SELECTOR, ".user-menu summary").click()
    browser.find_element(By.ID, "sign-out").click()

    for _ in range(4):
        fill(browser, username="aiko", password="still wrong!!")
        submit(browser, "login-form")
        assert "ユーザー名またはパスワードが違います" in browser.find_element(By.CSS_SELECTOR, ".notice.error").text
    fill(browser, username="aiko", password="still wrong!!")
    submit(browser, "login-form")
    assert "サインインの失敗が多すぎます" in browser.find_element(By.CSS_SELECTOR, ".notice.error").text
    # Locked means locked: the right password does not get in either.
    fill(browser, username="aiko", password=PASSWORD)
    submit(browser, "login-form")
    assert "サインインの失敗が多すぎます" in browser.find_element(By.CSS_SELECTOR, ".notice.error").text
    shot(browser, "05-locked-ja")


def test_settings_and_admin_look_finished_on_a_phone(server, phone):
    base = server["base"]
    phone.get(base + "/setup")
    fill(phone, username="ken", password=PASSWORD, password_confirm=PASSWORD)
    submit(phone, "setup-form")
    phone.get(base + "/settings")
    fill(phone, name="my script")
    phone.find_element(By.CSS_SELECTOR, "#tokens form.inline-form button").click()
    token = phone.find_element(By.ID, "new-token").text
    assert token.startswith("hibi_")
    shot(phone, "06-settings-phone")
    phone.get(base + "/admin/users")
    assert phone.find_element(By.CSS_SELECTOR, 'tr[data-username="ken"]')
    shot(phone, "07-admin-phone")
    phone.get(base + "/no/such/page")
    assert "Page not found" in phone.page_source
    shot(phone, "08-not-found-phone")

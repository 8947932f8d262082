// The appearance switch: "light" or "dark" in the hibi-theme cookie sets data-theme on <html>; none follows
// the system. Loaded without defer so the page is painted in the chosen scheme from the start.
(() => {
  const read = () => (document.cookie.match(/(?:^|;\s*)hibi-theme=(light|dark)/) || [])[1] || "system";
  const apply = (theme) => {
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  };
  apply(read());
  document.addEventListener("DOMContentLoaded", () => {
    const select = document.getElementById("theme-select");
    if (!select) return;
    select.value = read();
    select.addEventListener("change", () => {
      const theme = select.value;
      // A year; SameSite=Lax like Hibi's other cookies. Only the browser reads it.
      document.cookie = theme === "system" ? "hibi-theme=; Max-Age=0; Path=/; SameSite=Lax"
                                          : `hibi-theme=${theme}; Max-Age=31536000; Path=/; SameSite=Lax`;
      apply(theme);
    });
  });
})();

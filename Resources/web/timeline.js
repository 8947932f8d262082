// The timeline: loads the next page in place as the reader nears the end. Each page is the same HTML page
// fetched with its keyset cursor (?before=the last day shown); without script the "Load more" link does the same.
(() => {
  "use strict";

  let loading = false;

  async function loadMore(link) {
    if (loading) return;
    loading = true;
    link.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(link.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error(String(response.status));
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const list = document.getElementById("timeline-days");
      for (const card of page.querySelectorAll("#timeline-days > article")) list.appendChild(document.adoptNode(card));
      const wrap = document.getElementById("timeline-more-wrap");
      const nextWrap = page.getElementById("timeline-more-wrap");
      const end = page.getElementById("timeline-end");
      if (nextWrap) {
        wrap.replaceWith(document.adoptNode(nextWrap));
        watch();
      } else {
        wrap.replaceWith(end ? document.adoptNode(end) : document.createElement("p"));
      }
    } catch (error) {
      // Leave the link: a click retries, and without script it is an ordinary link.
      link.removeAttribute("aria-busy");
    } finally {
      loading = false;
    }
  }

  function watch() {
    const link = document.getElementById("timeline-more");
    if (!link) return;
    link.addEventListener("click", (event) => {
      event.preventDefault();
      loadMore(link);
    });
    if ("IntersectionObserver" in window) {
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          loadMore(link);
        }
      }, { rootMargin: "400px" });
      observer.observe(link);
    }
  }

  document.addEventListener("DOMContentLoaded", watch);
})();

// The revision page's QoS section: its report (warnings, headroom, configuration files) needs the design
// recomputed once, so it is fetched after the page has shown instead of slowing the page down. Without
// JavaScript the section keeps its link to the report's own page. Plain JS, no dependencies.
(function () {
  "use strict";

  document.querySelectorAll("[data-qos-report-url]").forEach(function (box) {
    fetch(box.getAttribute("data-qos-report-url"), {credentials: "same-origin", headers: {Accept: "text/html"}})
      .then(function (response) {
        // 409: the report explains why the configuration cannot be built; show that too.
        if (!response.ok && response.status !== 409) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        box.innerHTML = html;
        box.removeAttribute("aria-busy");
      })
      .catch(function () {
        box.removeAttribute("aria-busy");
        var note = box.querySelector("[data-qos-loading]");
        if (note) { note.textContent = "The QoS report could not be loaded here. "; }
      });
  });
})();

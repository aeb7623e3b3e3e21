// The revision page's QoS section: its report (warnings, headroom, configuration files) is read from the
// revision's stored configuration set, so it is fetched after the page has shown instead of slowing the page
// down. For a large revision the set is built by a worker first: the fragment then holds the build's progress,
// which job_progress.js polls until the job ends; this script then fetches the report again (a failed build
// offers a retry).
// Without JavaScript the section keeps its link to the report's own page. Plain JS, no dependencies.
(function () {
  "use strict";

  function load(box, url) {
    box.setAttribute("aria-busy", "true");
    fetch(url, {credentials: "same-origin", headers: {Accept: "text/html"}})
      .then(function (response) {
        // 409: the report explains why the configuration cannot be built; 202: a worker is building it.
        if (!response.ok && response.status !== 409) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        box.innerHTML = html;
        box.removeAttribute("aria-busy");
        var progress = box.querySelector("[data-job-status-url]");
        if (progress && window.fabricJobProgress) {
          // the build's progress (job_progress.js); when it ends, the report (or the failed build with its retry)
          window.fabricJobProgress.watch(progress, function () { load(box, box.getAttribute("data-qos-report-url")); });
        }
        var retry = box.querySelector("#qos-retry");
        if (retry) {
          retry.addEventListener("click", function (event) {
            event.preventDefault();
            load(box, box.getAttribute("data-qos-report-url") + "&retry=1");
          });
        }
      })
      .catch(function () {
        box.removeAttribute("aria-busy");
        var note = box.querySelector("[data-qos-loading]");
        if (note) {
          note.textContent = "The QoS report could not be loaded here. ";
        } else {
          // after a build's progress was shown: replace it, or it would stay on screen as if still running
          var p = document.createElement("p");
          p.className = "error-text";
          p.setAttribute("role", "alert");
          p.textContent = "The QoS report could not be loaded here; reload the page or open it on its own page.";
          box.replaceChildren(p);
        }
      });
  }

  document.querySelectorAll("[data-qos-report-url]").forEach(function (box) {
    load(box, box.getAttribute("data-qos-report-url"));
  });
})();

// The revision page's QoS section: its report (warnings, headroom, configuration files) is read from the
// revision's stored configuration set, so it is fetched after the page has shown instead of slowing the page
// down. For a large revision the set is built by a worker first: the fragment then holds the build's progress,
// which this script polls until the job ends and then fetches the report again (a failed build offers a retry).
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
        if (progress) { watch(box, progress); }
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

  function watch(box, section) {
    var url = section.getAttribute("data-job-status-url");
    var failures = 0;

    function tick() {
      fetch(url, {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}})
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (data) {
          failures = 0;
          var percent = Math.round(data.percent || 0);
          section.querySelectorAll("[data-job-field]").forEach(function (el) {
            var key = el.getAttribute("data-job-field");
            if (key === "percent") { el.value = percent; el.textContent = percent + "%"; }
            else if (key === "percent_text") { el.textContent = percent + "%"; }
            else if (key === "stage") { el.textContent = data.stage || "waiting for a worker"; }
            else if (key === "status_label") { el.textContent = data.status_label; el.className = "status status-" + data.status; }
          });
          if (data.terminal) {
            load(box, box.getAttribute("data-qos-report-url"));  // the report, or the failed build with its retry
          } else {
            window.setTimeout(tick, 1000);
          }
        })
        .catch(function () {
          failures += 1;
          window.setTimeout(tick, Math.min(10000, 1000 * Math.pow(2, failures)));
        });
    }
    window.setTimeout(tick, 1000);
  }

  document.querySelectorAll("[data-qos-report-url]").forEach(function (box) {
    load(box, box.getAttribute("data-qos-report-url"));
  });
})();

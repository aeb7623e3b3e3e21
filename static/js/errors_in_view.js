// Errors in view: when a page comes back with errors (a form that did not save, a refused upload), bring the
// first one on screen and put the keyboard on the field it names, so nobody has to hunt for a message far
// below the fold. The summary banner (role="alert") is read out by screen readers; a field's own error list
// sits next to it (id "<field id>_errors"). Plain JS, no dependencies, no inline script (the CSP allows none).
(function () {
  "use strict";

  function fieldOf(errorList) {
    var id = (errorList.id || "").replace(/_errors$/, "");
    var field = id && document.getElementById(id);
    if (field) { return field; }
    var box = errorList.closest(".field");
    return box && box.querySelector("input, select, textarea");
  }

  function openDetails(el) {
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var first = document.querySelector("ul.errorlist[id$='_errors'], .field ul.errorlist");
    var banner = document.querySelector(".errorlist.summary[role='alert'], div.errorlist[role='alert']");
    if (!first && !banner) { return; }
    var field = first && fieldOf(first);
    if (field) {
      openDetails(field);
      field.focus({ preventScroll: true });
    }
    // The banner first when there is one (it says how many problems there are), else the field's error.
    var target = banner || first;
    openDetails(target);
    target.scrollIntoView({ block: "start" });
  });
})();

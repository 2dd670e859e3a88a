/* Hosted checkout: input masks and hints on the form, then the payment page's countdown, copy
   button and payment watch. Served by us and allowed by the page's CSP nonce; the pages work
   without it (the server checks every field and the payment page has a refresh link). The server
   alone decides what is valid: this script keeps no copy of the rules. */
/* global document, window, navigator, fetch, performance, setTimeout, clearTimeout */
(function () {
  "use strict";

  function compactDocument(value) {
    return value.toUpperCase().replace(/[^0-9A-Z]/g, "");
  }

  // ---- Masks. ----

  function maskDocument(value) {
    var c = compactDocument(value).slice(0, 14);
    if (c.length <= 11 && /^\d*$/.test(c)) {
      return c
        .replace(/^(\d{3})(\d)/, "$1.$2")
        .replace(/^(\d{3})\.(\d{3})(\d)/, "$1.$2.$3")
        .replace(/\.(\d{3})(\d)/, ".$1-$2");
    }
    return c
      .replace(/^(\w{2})(\w)/, "$1.$2")
      .replace(/^(\w{2})\.(\w{3})(\w)/, "$1.$2.$3")
      .replace(/^(\w{2})\.(\w{3})\.(\w{3})(\w)/, "$1.$2.$3/$4")
      .replace(/\/(\w{4})(\w)/, "/$1-$2");
  }

  function maskPhone(value) {
    var d = value.replace(/\D/g, "").slice(0, 20);
    if (d.length > 11) return d;
    if (d.length <= 2) return d.length ? "(" + d : "";
    var rest = d.slice(2);
    var split = d.length === 11 ? 5 : 4;
    return "(" + d.slice(0, 2) + ") " + (rest.length > split ? rest.slice(0, split) + "-" + rest.slice(split) : rest);
  }

  function maskCep(value) {
    var d = value.replace(/\D/g, "").slice(0, 8);
    return d.length > 5 ? d.slice(0, 5) + "-" + d.slice(5) : d;
  }

  var masks = { document: maskDocument, phone: maskPhone, cep: maskCep };

  /** Reformats the input and keeps the caret after the same letter or digit it was after. */
  function applyMask(input) {
    var mask = masks[input.getAttribute("data-mask")];
    if (!mask) return;
    var caret = input.selectionStart === null ? input.value.length : input.selectionStart;
    var significantBefore = input.value.slice(0, caret).replace(/[^0-9A-Za-z]/g, "").length;
    var next = mask(input.value);
    if (next === input.value) return;
    input.value = next;
    var position = 0;
    var seen = 0;
    while (position < next.length && seen < significantBefore) {
      if (/[0-9A-Za-z]/.test(next.charAt(position))) seen++;
      position++;
    }
    if (document.activeElement === input) input.setSelectionRange(position, position);
  }

  // ---- Form: the server's errors, kept in step with what the payer corrects. ----

  function showProblem(control, message) {
    var box = document.getElementById(control.id + "-error");
    var wrapper = control.closest(".field");
    if (box) {
      box.textContent = message;
      box.hidden = !message;
    }
    if (wrapper) wrapper.classList.toggle("has-error", Boolean(message));
    if (message) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  }

  /**
   * The fields the server flagged. A flagged field the payer has changed, and not left empty,
   * loses its error and its line in the summary ("Confira os dados abaixo"); emptied, it gets
   * them back. The summary hides once no line is left. The server checks everything again on
   * submit.
   */
  function trackFlagged(form, summary) {
    var list = summary ? summary.querySelector("ul") : null;
    var flagged = [];
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid="true"]'), function (control) {
      var box = document.getElementById(control.id + "-error");
      var link = list ? list.querySelector('a[href="#' + control.id + '"]') : null;
      flagged.push({
        control: control,
        typed: control.value,
        message: box ? box.textContent : "",
        item: link ? link.closest("li") : null,
      });
    });

    function refresh(entry) {
      var value = entry.control.value;
      var corrected = value !== entry.typed && value.trim() !== "";
      showProblem(entry.control, corrected ? "" : entry.message);
      if (entry.item) entry.item.hidden = corrected;
      if (summary && list) {
        var left = flagged.filter(function (other) {
          return other.item && !other.item.hidden;
        }).length;
        summary.hidden = left === 0;
      }
    }

    flagged.forEach(function (entry) {
      function update() {
        refresh(entry);
      }
      entry.control.addEventListener("input", update);
      entry.control.addEventListener("change", update);
    });
    return flagged;
  }

  function setupForm(form) {
    var controls = Array.prototype.slice.call(form.querySelectorAll("input[data-mask]"));
    var summary = document.getElementById("resumo-erros");
    var submitting = false;

    controls.forEach(function (control) {
      applyMask(control);
      control.addEventListener("input", function () {
        applyMask(control);
      });
    });
    var flagged = trackFlagged(form, summary);

    form.addEventListener("submit", function (event) {
      if (submitting) {
        event.preventDefault();
        return;
      }
      submitting = true;
      var button = form.querySelector("[data-submit]");
      if (button) {
        button.disabled = true;
        button.textContent = "Gerando Pix…";
      }
    });

    // Back from the server with errors: the payer starts at the first field to correct.
    if (flagged.length > 0) flagged[0].control.focus();
    else if (summary && !summary.hidden) summary.focus();
  }

  // ---- Payment page. ----

  function formatCountdown(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    function two(n) {
      return (n < 10 ? "0" : "") + n;
    }
    return two(Math.floor(s / 3600)) + ":" + two(Math.floor((s % 3600) / 60)) + ":" + two(s % 60);
  }

  function setupCopy(section) {
    var button = section.querySelector("[data-copy]");
    var source = section.querySelector("[data-copy-source]");
    var status = section.querySelector("[data-copy-status]");
    if (!button || !source) return;
    button.hidden = false;
    var reset = null;
    button.addEventListener("click", function () {
      function done(ok) {
        status.textContent = ok
          ? "Código copiado. Cole no app do seu banco, em Pix copia e cola."
          : "Não foi possível copiar: selecione o código e copie manualmente.";
        button.textContent = ok ? "Código copiado" : "Copiar código Pix";
        clearTimeout(reset);
        reset = setTimeout(function () {
          button.textContent = "Copiar código Pix";
        }, 4000);
      }
      function fallback() {
        source.focus();
        source.select();
        var ok = false;
        try {
          ok = document.execCommand("copy");
        } catch (e) {
          ok = false;
        }
        done(ok);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.value).then(function () {
          done(true);
        }, fallback);
      } else {
        fallback();
      }
    });
  }

  function setupPayment(section) {
    var statusUrl = section.getAttribute("data-status-url");
    var interval = Number(section.getAttribute("data-poll-ms")) || 3000;
    var statusText = section.querySelector("[data-status-text]");
    var countdown = section.querySelector("[data-countdown]");
    var remaining = countdown ? Number(countdown.getAttribute("data-remaining")) : 0;
    var startedAt = performance.now();
    var delay = interval;
    var timer = null;
    var finished = false;

    function secondsLeft() {
      return remaining - (performance.now() - startedAt) / 1000;
    }

    var endAnnounced = false;
    function tick() {
      if (!countdown || finished) return;
      var left = secondsLeft();
      countdown.textContent = formatCountdown(left);
      if (left <= 0 && !endAnnounced) {
        endAnnounced = true;
        statusText.textContent = "O prazo para pagar terminou.";
        check();
      }
      setTimeout(tick, 1000);
    }

    function schedule() {
      clearTimeout(timer);
      if (!finished) timer = setTimeout(check, delay);
    }

    function check() {
      if (finished) return;
      if (document.hidden) return schedule();
      fetch(statusUrl, { headers: { accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("status " + response.status);
          return response.json();
        })
        .then(function (body) {
          delay = interval;
          // A charge whose code the bank is still generating (PENDING) reloads once it has one.
          var waiting = body.status === "WAITING_PAYMENT" || body.status === "PENDING" || body.status === "PROCESSING";
          if (waiting && body.status === (section.getAttribute("data-status") || body.status)) {
            remaining = Number(body.remainingSeconds);
            startedAt = performance.now();
            return schedule();
          }
          finished = true;
          statusText.textContent =
            body.status === "PAID" ? "Pagamento recebido! Abrindo o comprovante…" : "Atualizando a página…";
          window.location.reload();
        })
        .catch(function () {
          delay = Math.min(delay * 2, 30000);
          schedule();
        });
    }

    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) check();
    });
    setupCopy(section);
    tick();
    schedule();
  }

  var form = document.querySelector("[data-checkout-form]");
  if (form) setupForm(form);
  var payment = document.querySelector("[data-payment]");
  if (payment) setupPayment(payment);
  // A recurrence's page (Pix Automático): only the copy button.
  var recurrence = document.querySelector("[data-recurrence]");
  if (recurrence) setupCopy(recurrence);
})();

/* Hosted checkout: input masks and checks on the form, then the payment page's countdown, copy
   button and payment watch. Served by us and allowed by the page's CSP nonce; the pages work
   without it (the server checks everything again and the payment page has a refresh link). */
/* global document, window, navigator, fetch, performance, setTimeout, clearTimeout */
(function () {
  "use strict";

  // ---- Documents: the same rules as the server (CPF, numeric and alphanumeric CNPJ). ----

  function compactDocument(value) {
    return value.toUpperCase().replace(/[^0-9A-Z]/g, "");
  }

  function mod11(chars, weightOf) {
    var sum = 0;
    for (var i = 0; i < chars.length; i++) sum += (chars.charCodeAt(i) - 48) * weightOf(i, chars.length);
    var rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  }

  function cpfDigit(digits) {
    return mod11(digits, function (i, n) {
      return n - i + 1;
    });
  }

  function cnpjDigit(chars) {
    return mod11(chars, function (i, n) {
      return ((n - 1 - i) % 8) + 2;
    });
  }

  function checkDocument(value) {
    var compact = compactDocument(value);
    var kind = /^\d{11}$/.test(compact) ? "CPF" : /^[0-9A-Z]{12}\d{2}$/.test(compact) ? "CNPJ" : null;
    if (!kind) return "format";
    if (/^(.)\1+$/.test(compact) || compact === "12345678909") return kind;
    var base = compact.slice(0, kind === "CPF" ? 9 : 12);
    var digit = kind === "CPF" ? cpfDigit : cnpjDigit;
    base += digit(base);
    base += digit(base);
    return base === compact ? "ok" : kind;
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

  // ---- Form checks: the messages the server gives. ----

  var EMAIL =
    /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

  var required = {
    street: "Informe a rua.",
    number: "Informe o número.",
    district: "Informe o bairro.",
    city: "Informe a cidade.",
  };
  var maxLength = { street: 160, number: 20, complement: 80, district: 80, city: 80 };

  function fieldProblem(name, raw) {
    var value = raw.trim();
    switch (name) {
      case "name": {
        var n = value.replace(/\s+/g, " ").length;
        return n < 2 || n > 120 ? "Informe seu nome completo (de 2 a 120 caracteres)." : "";
      }
      case "email":
        if (!value) return "Informe seu e-mail.";
        return value.length > 160 || !EMAIL.test(value) ? "Informe um e-mail válido, como nome@exemplo.com.br." : "";
      case "phone": {
        var digits = raw.replace(/[\s().+-]/g, "");
        if (!digits) return "Informe seu telefone com DDD.";
        return /^\d{8,20}$/.test(digits) ? "" : "Informe o telefone com DDD: de 8 a 20 dígitos.";
      }
      case "document": {
        if (!value) return "Informe seu CPF ou CNPJ.";
        var result = checkDocument(value);
        if (result === "ok") return "";
        if (result === "format") return "Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres).";
        return result + " inválido: confira os números digitados.";
      }
      case "zipCode":
        if (!value) return "Informe o CEP.";
        return /^\d{8}$/.test(value.replace(/[\s.-]/g, "")) ? "" : "Informe o CEP com 8 dígitos.";
      case "state":
        return value ? "" : "Escolha o estado.";
      default:
        if (!value && required[name]) return required[name];
        if (maxLength[name] && value.length > maxLength[name])
          return "Use no máximo " + maxLength[name] + " caracteres.";
        return "";
    }
  }

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

  function labelOf(control) {
    var label = document.querySelector('label[for="' + control.id + '"]');
    return label ? label.firstChild.textContent.trim() : control.name;
  }

  function setupForm(form) {
    var controls = Array.prototype.slice.call(form.querySelectorAll("input[id], select[id]"));
    var summary = document.getElementById("resumo-erros");
    var submitting = false;

    controls.forEach(function (control) {
      if (control.hasAttribute("data-mask")) {
        applyMask(control);
        control.addEventListener("input", function () {
          applyMask(control);
        });
      }
      // Once a field has been flagged, re-check it as the payer corrects it.
      control.addEventListener("input", function () {
        if (control.getAttribute("aria-invalid") === "true")
          showProblem(control, fieldProblem(control.name, control.value));
      });
      control.addEventListener("change", function () {
        if (control.getAttribute("aria-invalid") === "true")
          showProblem(control, fieldProblem(control.name, control.value));
      });
    });

    form.addEventListener("submit", function (event) {
      if (submitting) {
        event.preventDefault();
        return;
      }
      var problems = [];
      controls.forEach(function (control) {
        var message = fieldProblem(control.name, control.value);
        showProblem(control, message);
        if (message) problems.push({ control: control, message: message });
      });
      if (problems.length > 0) {
        event.preventDefault();
        if (summary) {
          var list = summary.querySelector("ul");
          list.textContent = "";
          problems.forEach(function (p) {
            var item = document.createElement("li");
            var link = document.createElement("a");
            link.href = "#" + p.control.id;
            link.textContent = labelOf(p.control) + ": " + p.message;
            item.appendChild(link);
            list.appendChild(item);
          });
          summary.hidden = false;
        }
        problems[0].control.focus();
        return;
      }
      submitting = true;
      var button = form.querySelector("[data-submit]");
      if (button) {
        button.disabled = true;
        button.textContent = "Gerando Pix…";
      }
    });

    if (summary && !summary.hidden) summary.focus();
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
          if (body.status === "WAITING_PAYMENT" || body.status === "PENDING" || body.status === "PROCESSING") {
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
})();

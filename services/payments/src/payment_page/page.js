// Coffer's payment page (payment_page/domain.rs), in one of two steps. Entering the card:
// the provider's fields take it, its script makes a token of it, and only that token is
// posted to Coffer. Confirming: the provider's script asks the donor's bank, and the
// page goes back to Coffer, which asks the provider how it ended. No card number passes
// through this script.
(function () {
  "use strict";
  var root = document.getElementById("pay");
  var status = document.getElementById("status");
  var form = document.getElementById("card-form");
  var button = document.getElementById(form ? "pay-card" : "confirm");
  if (!root || !button || !status) {
    return;
  }
  if (typeof Stripe !== "function") {
    // The provider's script did not load (blocked, or the network): say so, not nothing.
    status.textContent = root.dataset.unavailable;
    button.setAttribute("aria-disabled", "true");
    return;
  }
  var stripe = Stripe(root.dataset.key);
  var started = false;
  // A page the browser brings back from its history starts again.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      busy(false);
      status.textContent = "";
    }
  });

  // aria-disabled rather than disabled, so the focus stays on the button.
  function busy(on) {
    started = on;
    if (on) {
      button.setAttribute("aria-disabled", "true");
      status.textContent = root.dataset.working;
    } else {
      button.removeAttribute("aria-disabled");
    }
  }

  if (form) {
    var card = stripe.elements().create("card");
    card.mount("#card");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (started) {
        return;
      }
      busy(true);
      stripe.createToken(card).then(
        function (result) {
          if (!result || result.error || !result.token) {
            busy(false);
            status.textContent = root.dataset.unread;
            return;
          }
          // Posted from here, then the return opened as a navigation of its own: the
          // return may send the donor on to the merchant, which a redirect after a form
          // post could not do under the page's form-action.
          var body = new URLSearchParams();
          body.set("token", result.token.id);
          return fetch(form.action, {
            method: "POST",
            body: body,
            credentials: "same-origin",
            redirect: "error"
          }).then(function (answer) {
            if (!answer.ok) {
              throw new Error(String(answer.status));
            }
            window.location.assign(root.dataset.back);
          });
        }
      ).catch(function () {
        busy(false);
        status.textContent = root.dataset.retry;
      });
    });
    return;
  }

  button.addEventListener("click", function () {
    if (started) {
      return;
    }
    busy(true);
    // Whatever the bank said, Coffer asks the provider itself on the way back.
    stripe.confirmCardPayment(root.dataset.secret).then(
      function () { window.location.assign(root.dataset.back); },
      function () { window.location.assign(root.dataset.back); }
    );
  });
})();

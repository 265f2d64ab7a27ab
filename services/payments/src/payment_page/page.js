// Coffer's payment page (payment_page/domain.rs), in one of two steps. Entering the card:
// the provider's fields take it, its script makes a token of it, and the form posts only
// that token to Coffer. Confirming: the provider's script asks the donor's bank, and the
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
          document.getElementById("token").value = result.token.id;
          form.submit();
        },
        function () {
          busy(false);
          status.textContent = root.dataset.unread;
        }
      );
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

"""Well-known products whose admission webhooks on-call engineers know by name (Kyverno, OPA
Gatekeeper, cert-manager), recognised from a webhook's name and the Service it is called at: a
typed fact, worded by report/words. A leaf: it imports only the model."""

from __future__ import annotations

from enum import Enum

from podwhy.model import objects as o


class WebhookProduct(Enum):
    KYVERNO = "kyverno"
    GATEKEEPER = "gatekeeper"
    CERT_MANAGER = "cert-manager"


# What each product installs (its charts' and manifests' defaults): the webhooks' names (a suffix
# of the name, which a product may prefix: `validate.kyverno.svc-fail`, `mutate.kyverno.svc`), the
# Services they are called at and the namespaces those run in.
WEBHOOK_NAME_MARKERS: dict[WebhookProduct, tuple[str, ...]] = {
    WebhookProduct.KYVERNO: (".kyverno.svc",),
    WebhookProduct.GATEKEEPER: (".gatekeeper.sh",),
    WebhookProduct.CERT_MANAGER: ("webhook.cert-manager.io",),
}
SERVICE_NAMES: dict[WebhookProduct, tuple[str, ...]] = {
    WebhookProduct.KYVERNO: ("kyverno-svc",),
    WebhookProduct.GATEKEEPER: ("gatekeeper-webhook-service",),
    WebhookProduct.CERT_MANAGER: ("cert-manager-webhook",),
}
SERVICE_NAMESPACES: dict[WebhookProduct, tuple[str, ...]] = {
    WebhookProduct.KYVERNO: ("kyverno",),
    WebhookProduct.GATEKEEPER: ("gatekeeper-system",),
    WebhookProduct.CERT_MANAGER: ("cert-manager",),
}


def recognize(webhook: o.ValidatingWebhook) -> WebhookProduct | None:
    """The product a webhook is, by its name, else its Service's name, else the namespace its
    Service is in; None when none says."""
    for product, markers in WEBHOOK_NAME_MARKERS.items():
        if any(marker in webhook.name for marker in markers):
            return product
    service = webhook.client_config.service
    if service is None:
        return None
    for table, value in ((SERVICE_NAMES, service.name), (SERVICE_NAMESPACES, service.namespace)):
        for product, names in table.items():
            if value in names:
                return product
    return None

# The registries-controller image as the OpenShift release pipeline builds it (MCO's form): the CVO applies
# /manifests from every image labelled io.openshift.release.operator=true, and the Deployment among them runs
# /usr/bin/registries-controller. No container engine runs here; `make image` assembles the same image offline
# (same binary recipe, entrypoint, user, /manifests and labels), and test/e2e/image checks that both agree.
FROM registry.ci.openshift.org/ocp/builder:rhel-9-golang-1.26-openshift-4.22 AS builder
WORKDIR /go/src/github.com/openshift/registries-controller
COPY . .
RUN make image-binary

FROM registry.ci.openshift.org/ocp/4.22:base-rhel9
COPY --from=builder /go/src/github.com/openshift/registries-controller/_output/image/registries-controller /usr/bin/registries-controller
COPY manifests /manifests
USER 1001
ENTRYPOINT ["/usr/bin/registries-controller"]
LABEL io.openshift.release.operator=true \
      io.k8s.display-name="registries-controller" \
      io.k8s.description="Renders the cluster's mirror configuration and signature policies into per-pool MachineConfigs." \
      io.openshift.tags="openshift,registries-controller"

package registryprobe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// idleConnTimeout is how long an idle connection is kept for the next request to the same host.
const idleConnTimeout = 90 * time.Second

// classify turns a request error (no HTTP answer) into an answer and a detail naming the cause.
func classify(err error) Result {
	var (
		unknownCA   x509.UnknownAuthorityError
		hostname    x509.HostnameError
		invalid     x509.CertificateInvalidError
		verify      *tls.CertificateVerificationError
		record      tls.RecordHeaderError
		alert       tls.AlertError
		netErr      net.Error
		dnsErr      *net.DNSError
		opErr       *net.OpError
		certDetails string
	)
	if errors.As(err, &verify) && len(verify.UnverifiedCertificates) > 0 {
		c := verify.UnverifiedCertificates[0]
		certDetails = fmt.Sprintf(" (the registry's certificate: subject %q, issuer %q)", c.Subject.String(), c.Issuer.String())
	}
	switch {
	case errors.As(err, &unknownCA):
		return Result{Answer: TLSFailure, Detail: "certificate signed by an unknown authority" + certDetails +
			": trust its CA (certs.d/HOST/ca.crt on the node, --certs-dir here), or mark the registry insecure"}
	case errors.As(err, &hostname):
		return Result{Answer: TLSFailure, Detail: "certificate not valid for this host: " + hostname.Error()}
	case errors.As(err, &invalid):
		return Result{Answer: TLSFailure, Detail: "certificate invalid: " + invalid.Error() + certDetails}
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return Result{Answer: TLSFailure, Detail: "the registry does not speak TLS (it answered plain HTTP?): " +
			"a node pulls over HTTPS unless the registry is marked insecure"}
	case errors.As(err, &alert):
		return Result{Answer: TLSFailure, Detail: "the registry refused the TLS handshake: " + alert.Error()}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return Result{Answer: TimedOut, Detail: "no answer within the per-request timeout"}
	case errors.As(err, &dnsErr):
		return Result{Answer: Unreachable, Detail: "no such host: " + dnsErr.Error()}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return Result{Answer: Unreachable, Detail: strings.TrimPrefix(opErr.Err.Error(), "connect: ")}
	case errors.Is(err, context.Canceled):
		return Result{Answer: Failed, Detail: "canceled"}
	default:
		return Result{Answer: Unreachable, Detail: err.Error()}
	}
}

package registryprobe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

const (
	bearerScheme = "bearer"
	basicScheme  = "basic"
)

// challenge is a parsed WWW-Authenticate header, e.g. `Bearer realm="https://auth.example.com/token",
// service="registry.example.com"`.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenge parses the first challenge of a WWW-Authenticate header; quoted values may hold commas.
func parseChallenge(h string) challenge {
	h = strings.TrimSpace(h)
	scheme, rest, _ := strings.Cut(h, " ")
	ch := challenge{scheme: strings.ToLower(scheme), params: map[string]string{}}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimLeft(strings.TrimSpace(rest), ",") {
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var value string
		if strings.HasPrefix(after, `"`) {
			end := strings.Index(after[1:], `"`)
			if end < 0 {
				value, rest = after[1:], ""
			} else {
				value, rest = after[1:1+end], after[2+end:]
			}
		} else {
			value, rest, _ = strings.Cut(after, ",")
		}
		ch.params[key] = strings.TrimSpace(value)
	}
	return ch
}

// tokenKey names a cached Authorization header: per host and repository (a token's scope is one repository), and
// per credentials (Credential.From): places of one host may be asked with different ones (a namespace's key for
// one repository, the global pull secret's for another), and one's header must not answer for the other.
type tokenKey struct{ host, repo, from string }

// cachedAuth returns the Authorization header that worked for the repository with the credentials from before, ""
// when none.
func (p *Prober) cachedAuth(host, repo, from string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.tokens[tokenKey{host, repo, from}]; ok {
		return a
	}
	return p.tokens[tokenKey{host: host, from: from}] // Basic is per host
}

func (p *Prober) cacheAuth(k tokenKey, header string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokens[k] = header
}

// authorization is the Authorization header to retry with ("" when there is nothing to retry with), and whether
// credentials were sent to get it.
type authorization struct {
	header          string
	credentialsSent bool
}

// authorize answers a 401's challenge: Basic with the credentials, or a Bearer token from the realm, asked
// with the credentials when there are any and anonymously otherwise (public repositories need a token too).
func (p *Prober) authorize(ctx context.Context, client *http.Client, m *manifestRequest, ch challenge) (authorization, error) {
	host, repo, cred := domainOf(m), pathOf(m), m.t.Credential
	switch ch.scheme {
	case basicScheme:
		if cred.empty() {
			return authorization{}, nil
		}
		h := "Basic " + base64.StdEncoding.EncodeToString([]byte(cred.Username+":"+cred.Password))
		p.cacheAuth(tokenKey{host: host, from: cred.From}, h)
		return authorization{header: h, credentialsSent: true}, nil
	case bearerScheme:
		token, err := p.token(ctx, client, ch, repo, cred)
		if err != nil || token == "" {
			return authorization{credentialsSent: !cred.empty()}, err
		}
		h := "Bearer " + token
		p.cacheAuth(tokenKey{host, repo, cred.From}, h)
		return authorization{header: h, credentialsSent: !cred.empty()}, nil
	}
	return authorization{}, nil
}

// token asks the challenge's realm for a pull token of repo: GET with Basic credentials, or, with an identity
// token, the OAuth2 refresh-token POST (as containers/image does). A realm that refuses answers "" and no error:
// the manifest request then stays unauthorized.
func (p *Prober) token(ctx context.Context, client *http.Client, ch challenge, repo string, cred Credential) (string, error) {
	realm, err := url.Parse(ch.params["realm"])
	if err != nil || realm.Host == "" {
		return "", fmt.Errorf("the registry's Bearer challenge names no usable realm (%q)", ch.params["realm"])
	}
	scope := "repository:" + repo + ":pull"
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	var req *http.Request
	if cred.IdentityToken != "" {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cred.IdentityToken},
			"service": {ch.params["service"]}, "scope": {scope}, "client_id": {"registries-controller"}}
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, realm.String(), strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		q := realm.Query()
		if s := ch.params["service"]; s != "" {
			q.Set("service", s)
		}
		q.Set("scope", scope)
		realm.RawQuery = q.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, realm.String(), nil)
		if err == nil && !cred.empty() {
			req.SetBasicAuth(cred.Username, cred.Password)
		}
	}
	if err != nil {
		return "", err
	}
	p.request.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDrain))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil
	}
	var t struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return "", fmt.Errorf("the token realm %s answered: %w", realm.Host, err)
	}
	if t.Token == "" {
		t.Token = t.AccessToken
	}
	if t.Token == "" {
		return "", errNoToken
	}
	return t.Token, nil
}

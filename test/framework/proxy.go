package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Proxy is a plain-HTTP proxy on loopback in front of the control plane's kube-apiserver, forwarding every request
// as the admin user. A test points one client at it (KubeconfigPath) to count that client's requests, or to hold
// one request back, as a slow or stuck API server would, at an exact point of the client's work:
//
//	proxy, err := cp.StartProxy(t.TempDir())
//	held := proxy.Hold(func(r framework.Request) bool { return r.Resource == "machineconfigs" && r.Verb == "update" })
//	... <-held.Arrived ... kill the client ... held.Release()
//
// Watches stream through it. Requests are counted when they arrive, before they are forwarded.
type Proxy struct {
	// URL is where the proxy listens, http://127.0.0.1:PORT.
	URL string
	// KubeconfigPath is a kubeconfig that reaches the control plane through the proxy, without credentials.
	KubeconfigPath string

	server *http.Server
	proxy  *httputil.ReverseProxy

	mu       sync.Mutex
	requests []Request
	holds    []*Held
}

// Request is one request the proxy received, classified as kube-apiserver's authorizer sees it.
type Request struct {
	Time   time.Time
	Method string
	// Path and RawQuery are the URL's.
	Path, RawQuery string
	// Verb is get, list, watch, create, update, patch, delete or deletecollection for resource requests, the
	// lowercase HTTP method for others.
	Verb string
	// Group, Resource, Subresource, Namespace and Name are empty when the request does not name them.
	Group, Resource, Subresource, Namespace, Name string
	// Held is true when the request was held (Hold) and never forwarded.
	Held bool
	// Code is the status code of the answer, 0 while there is none (a watch, or a held request).
	Code int
}

func (r Request) String() string {
	return fmt.Sprintf("%s %s?%s", r.Method, r.Path, r.RawQuery)
}

// Held is a request the proxy holds back instead of forwarding.
type Held struct {
	// Arrived is closed when a matching request arrives; Request then describes it.
	Arrived chan struct{}
	Request Request

	match    func(Request) bool
	release  chan struct{}
	once     sync.Once
	taken    bool
	finished chan struct{}
}

// Release lets the held request go on to kube-apiserver (when its client is still waiting); a Held whose request
// has not arrived yet stops waiting for one.
func (h *Held) Release() { h.once.Do(func() { close(h.release) }) }

// Done is closed once the held request is over: forwarded after Release, or abandoned by its client (for example
// killed) before that, in which case it never reached kube-apiserver.
func (h *Held) Done() <-chan struct{} { return h.finished }

// StartProxy starts a Proxy for cp and writes its kubeconfig into dir. Stop it with Close.
func (cp *ControlPlane) StartProxy(dir string) (*Proxy, error) {
	target, err := url.Parse(cp.RESTConfig.Host)
	if err != nil {
		return nil, err
	}
	transport, err := rest.TransportFor(cp.RESTConfig)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), KubeconfigPath: filepath.Join(dir, "proxy.kubeconfig")}
	p.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     transport,
		FlushInterval: -1, // watches stream
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, context.Canceled) {
				http.Error(w, err.Error(), http.StatusBadGateway)
			}
		},
	}
	config, err := clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"proxy": {Server: p.URL}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"proxy": {}},
		Contexts:       map[string]*clientcmdapi.Context{"proxy": {Cluster: "proxy", AuthInfo: "proxy"}},
		CurrentContext: "proxy",
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	if err := writePrivateFile(p.KubeconfigPath, config); err != nil {
		ln.Close()
		return nil, err
	}
	p.server = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go p.server.Serve(ln) //nolint:errcheck // ends with Close
	return p, nil
}

// Close stops the proxy, releasing every held request and closing every connection, watches included.
func (p *Proxy) Close() error {
	p.mu.Lock()
	for _, h := range p.holds {
		h.Release()
	}
	p.mu.Unlock()
	return p.server.Close()
}

// Requests returns the requests received so far, in order of arrival.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Hold holds back the next request that match accepts, until Release.
func (p *Proxy) Hold(match func(Request) bool) *Held {
	h := &Held{Arrived: make(chan struct{}), match: match, release: make(chan struct{}), finished: make(chan struct{})}
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.mu.Unlock()
	return h
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	req := classifyRequest(r)
	p.mu.Lock()
	var held *Held
	for _, h := range p.holds {
		if !h.taken && h.match(req) {
			h.taken, held = true, h
			req.Held = true
			h.Request = req
			break
		}
	}
	p.requests = append(p.requests, req)
	index := len(p.requests) - 1
	p.mu.Unlock()
	w = &codeRecorder{ResponseWriter: w, record: func(code int) {
		p.mu.Lock()
		p.requests[index].Code = code
		p.mu.Unlock()
	}}
	if held == nil {
		p.proxy.ServeHTTP(w, r)
		return
	}
	defer close(held.finished)
	// The server notices a client that is gone (and cancels the request's context) only once the body is read.
	body, err := io.ReadAll(r.Body)
	if err != nil {
		close(held.Arrived)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	close(held.Arrived)
	select {
	case <-r.Context().Done(): // the client is gone: the request never reaches kube-apiserver
		return
	case <-held.release:
	}
	p.mu.Lock()
	p.requests[index].Held = false
	p.mu.Unlock()
	p.proxy.ServeHTTP(w, r)
}

// classifyRequest names a request's verb and resource the way kube-apiserver's request info resolver does, for the
// paths /api/v1/... and /apis/GROUP/VERSION/...
func classifyRequest(r *http.Request) Request {
	req := Request{Time: time.Now(), Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Verb: strings.ToLower(r.Method)}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		req.Group = parts[1]
		parts = parts[3:]
	default:
		return req
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) != 2 {
		req.Namespace, parts = parts[1], parts[2:]
	}
	if len(parts) == 0 {
		return req
	}
	req.Resource = parts[0]
	if len(parts) > 1 {
		req.Name = parts[1]
	}
	if len(parts) > 2 {
		req.Subresource = parts[2]
	}
	watch := r.URL.Query().Get("watch")
	switch r.Method {
	case http.MethodGet:
		switch {
		case watch == "true" || watch == "1":
			req.Verb = "watch"
		case req.Name == "":
			req.Verb = "list"
		default:
			req.Verb = "get"
		}
	case http.MethodPost:
		req.Verb = "create"
	case http.MethodPut:
		req.Verb = "update"
	case http.MethodPatch:
		req.Verb = "patch"
	case http.MethodDelete:
		req.Verb = "delete"
		if req.Name == "" {
			req.Verb = "deletecollection"
		}
	}
	return req
}

// codeRecorder passes the status code of an answer to record.
type codeRecorder struct {
	http.ResponseWriter
	record func(code int)
}

func (c *codeRecorder) WriteHeader(code int) {
	c.record(code)
	c.ResponseWriter.WriteHeader(code)
}

// Flush lets watches stream.
func (c *codeRecorder) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the original writer.
func (c *codeRecorder) Unwrap() http.ResponseWriter { return c.ResponseWriter }

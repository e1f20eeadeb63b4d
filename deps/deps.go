package deps
import (
 _ "github.com/go-chi/chi/v5"
 _ "github.com/jmoiron/sqlx"
 _ "modernc.org/sqlite"
 _ "github.com/prometheus/client_golang/prometheus"
 _ "github.com/swaggo/swag"
 _ "github.com/swaggo/http-swagger/v2"
 _ "k8s.io/client-go/kubernetes"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/chromedp/chromedp"
)

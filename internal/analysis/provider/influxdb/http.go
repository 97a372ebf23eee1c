package influxdb

import (
	"encoding/json"
)

// errorMessage is InfluxDB's error text from an error body: 2.x's
// {"code","message"}, 1.x's {"error"}, else the body itself
// (httpfetch.StatusError quotes the start of it).
func errorMessage(body []byte) string {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		switch {
		case e.Code != "" && e.Message != "":
			return e.Code + ": " + e.Message
		case e.Message != "":
			return e.Message
		case e.Error != "":
			return e.Error
		}
	}
	return string(body)
}

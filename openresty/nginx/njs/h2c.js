// h2c.js tells cleartext HTTP/2 from HTTP/1.1 by a connection's first bytes, for the
// stream router in front of a plain port that serves gRPC (render's h2c.go). An HTTP/2
// client with prior knowledge opens with the connection preface; an HTTP/1.1 request
// line differs from it within its first bytes. The router reads $rp_h2c: "1" for h2c.
var preface = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

// preread waits until the bytes received either leave the preface (HTTP/1.1) or hold
// all of it (h2c), or until the client ends its side (HTTP/1.1's listener then answers
// what it can); the bytes read are passed on with the connection.
function preread(s) {
    var seen = '';
    s.on('upload', function (data, flags) {
        seen += data;
        var n = Math.min(seen.length, preface.length);
        if (seen.substring(0, n) !== preface.substring(0, n)) {
            s.variables.rp_h2c = '0';
        } else if (n === preface.length) {
            s.variables.rp_h2c = '1';
        } else if (!flags.last) {
            return;
        }
        s.off('upload');
        s.done();
    });
}

export default { preread };

// busy.js: the script behind node-busy.cpuprofile, recorded with
//   node --cpu-prof --cpu-prof-dir=DIR --cpu-prof-interval 500 busy.js   (node 20.20.2, Debian 12)
// A small CPU-busy script: three functions with different costs.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sieve(n) {
  const a = new Uint8Array(n + 1); let c = 0;
  for (let i = 2; i <= n; i++) { if (!a[i]) { c++; for (let j = i * i; j <= n; j += i) a[j] = 1; } }
  return c;
}
function sortRandom(n) {
  const xs = []; for (let i = 0; i < n; i++) xs.push(Math.sin(i) * 1e6);
  return xs.sort((a, b) => a - b)[0];
}
const t0 = Date.now();
let r = 0;
while (Date.now() - t0 < 1500) { r += fib(22); r += sieve(200000); r += sortRandom(20000); }
console.log(Number.isFinite(r));

/** Tailwind builds static/css/app.css from the classes used in the templ views. */
module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./handlers/ui/**/*.go"],
  theme: {
    extend: {
      colors: {
        brand: {
          50: "#eef6ff",
          100: "#d9eaff",
          200: "#bcdaff",
          300: "#8ec3ff",
          400: "#59a1ff",
          500: "#337dfc",
          600: "#1d5ef1",
          700: "#1549de",
          800: "#183db4",
          900: "#1a388d",
        },
      },
      fontFamily: {
        sans: ["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
      },
    },
  },
  plugins: [],
};
